#!/usr/bin/env python3
"""gen_mpi_exp.py [-e EVENTS] [-p RANKS] DIR - a synthetic MPI experiment for timing
`perfscope mpi`: RANKS ranks (default 8) with EVENTS MPI events in all (default 1,000,000; an
event is an MPI enter or leave record, so a call is two), written in the stream format of
docs/format.md ("MPI records") with the monotonic clock, one process and one stream per rank.

Every iteration (20 us) each rank k posts MPI_Irecv from k-1, MPI_Isend to k+1 (1 KiB, rank
i mod RANKS late by 5 us, so its neighbour waits for it: Late Sender) and completes both with
MPI_Waitall; every 8th iteration all ranks also call MPI_Allreduce, entering 100 ns apart
(fewer above 40 ranks, so the collective ends inside its 20 us iteration and every stream's
times increase, whatever RANKS; Wait at N x N). Routine ids come from src/mpi-rt/mpi-calls.def. Call sites are 0 (unknown), so
no symbols are looked up. Prints the counts of calls, events, messages and collectives."""
import argparse
import json
import os
import re
import struct

START = 10_000_000_000  # ns on every rank's clock (aligned: offsets 0)
STEP = 20_000  # ns per iteration
CHUNK_WORDS = (1 << 20) // 8 - 64  # records per chunk stay under the 1 MiB chunk size
HERE = os.path.dirname(os.path.abspath(__file__))

REC_CLOCK_SYNC, REC_END = 4, 7
REC_MPI_INIT, REC_MPI_ENTER, REC_MPI_LEAVE, REC_MPI_COMM, REC_MPI_CLOCK = 14, 15, 16, 17, 18
ITEM_RECV, ITEM_ISEND, ITEM_IRECV, ITEM_ISEND_DONE, ITEM_COLL = 2, 3, 4, 5, 6
U32 = 0xFFFFFFFF


def routine_ids():
    ids = {}
    with open(os.path.join(HERE, "..", "src", "mpi-rt", "mpi-calls.def")) as f:
        for line in f:
            m = re.match(r"MPI_CALL\((\w+),", line)
            if m:
                ids[m.group(1)] = len(ids)
    return ids


def ext(t, typ, arg, payload=()):
    return [(t << 2) | 2, typ | ((2 + len(payload)) << 16) | (arg << 32), *payload]


def peer_tag(peer, tag):
    return (peer & U32) | ((tag & U32) << 32)


class Stream:
    """One rank's stream: records gathered into chunks that each start with a clock sync."""

    def __init__(self, path, pid, rank):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<8sIIQIIiIQQII", b"PSCSTRM1", 1, 64, 0, pid, pid, rank, 1,
                                 START - 100_000, START - 100_000, 0, 0))
        self.words, self.seq, self.last = [], 0, START - 100_000

    def add(self, rec):
        if len(self.words) + len(rec) > CHUNK_WORDS:
            self.flush()
        if not self.words:
            self.words = ext(self.last, REC_CLOCK_SYNC, 0, [self.last])
        self.words += rec
        self.last = rec[0] >> 2

    def flush(self):
        if self.words:
            self.f.write(struct.pack("<IIQ", 0x4B435350, 8 * len(self.words), self.seq))
            self.f.write(struct.pack(f"<{len(self.words)}Q", *self.words))
            self.seq += 1
            self.words = []

    def close(self):
        self.flush()
        self.f.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-e", "--events", type=int, default=1_000_000)
    ap.add_argument("-p", "--ranks", type=int, default=8)
    ap.add_argument("dir")
    a = ap.parse_args()
    if a.ranks < 2 or a.events < 100:
        ap.error("at least 2 ranks and 100 events")
    rid = routine_ids()
    r_irecv, r_isend, r_waitall = rid["Irecv"], rid["Isend"], rid["Waitall"]
    r_allreduce, r_init, r_fin = rid["Allreduce"], rid["Init"], rid["Finalize"]
    p = a.ranks
    # events per iteration per rank: 3 calls, and 1 allreduce every 8 iterations
    iters = max(8, round(a.events / (p * 2 * (3 + 1 / 8))))
    end = START + (iters + 2) * STEP
    # collective entries SPREAD ns apart: the last leaves by 15 us + 4 us + 500 ns < STEP
    spread = min(100, 4_000 // p)
    os.makedirs(a.dir)
    with open(os.path.join(a.dir, "meta.json"), "w") as f:
        json.dump({"version": 1, "created_by": "gen_mpi_exp.py", "command": ["synthetic"],
                   "start_ns": START - 100_000, "end_ns": end + 100_000}, f)
    members = []  # the world's ranks as i32 pairs
    for i in range(0, p, 2):
        members.append(i | ((i + 1) << 32) if i + 1 < p else i)
    calls = events = 0
    for k in range(p):
        pid = 1000 + k
        with open(os.path.join(a.dir, f"proc.{pid}.json"), "w") as f:
            json.dump({"version": 1, "pid": pid, "ppid": 1, "rank": k, "world_size": p,
                       "exe": "/synthetic/mpi", "cmdline": ["/synthetic/mpi"],
                       "state": "exited", "clock": "monotonic",
                       "calibration": [[str(START - 50_000), str(START - 50_000)],
                                       [str(end + 50_000), str(end + 50_000)]],
                       "start_unix_ns": 1_700_000_000_000_000_000, "chunk_bytes": 1 << 20,
                       "events": [], "paranoid": 2, "lost_records": 0, "lost_bytes": 0,
                       "error": ""}, f)
        s = Stream(os.path.join(a.dir, f"stream.{pid}.{pid}"), pid, k)
        t = START - 40_000
        s.add(ext(t, REC_MPI_ENTER, r_init))
        s.add(ext(t + 10_000, REC_MPI_INIT, k, [p, 0]))
        s.add(ext(t + 10_000, REC_MPI_COMM, 0, [0, p, *members]))
        s.add(ext(t + 10_000, REC_MPI_CLOCK, 0, [t + 10_000, 0, 2_000]))
        s.add(ext(t + 20_000, REC_MPI_LEAVE, r_init, [0]))
        calls += 1
        src, dst = (k - 1) % p, (k + 1) % p
        for i in range(iters):
            base = START + i * STEP
            tag = i & 0x7FFF
            rq = 2 * i + 1
            late = 5_000 if i % p == k else 0
            src_late = 5_000 if i % p == src else 0
            s.add(ext(base + 100, REC_MPI_ENTER, r_irecv))
            s.add(ext(base + 300, REC_MPI_LEAVE, r_irecv,
                      [0, ITEM_IRECV, peer_tag(src, tag), 1024, rq]))
            s.add(ext(base + 400 + late, REC_MPI_ENTER, r_isend))
            s.add(ext(base + 600 + late, REC_MPI_LEAVE, r_isend,
                      [0, ITEM_ISEND, peer_tag(dst, tag), 1024, rq + 1]))
            wenter = base + 1_000 + late
            wleave = max(wenter, base + 400 + src_late + 1_500) + 100
            s.add(ext(wenter, REC_MPI_ENTER, r_waitall))
            s.add(ext(wleave, REC_MPI_LEAVE, r_waitall,
                      [0, ITEM_RECV, peer_tag(src, tag), 1024, rq,
                       ITEM_ISEND_DONE, 0, 0, rq + 1]))
            calls += 3
            if i % 8 == 7:
                s.add(ext(base + 15_000 + spread * k, REC_MPI_ENTER, r_allreduce))
                s.add(ext(base + 15_000 + spread * p + 500, REC_MPI_LEAVE, r_allreduce,
                          [0, ITEM_COLL, U32, 8, 8]))
                calls += 1
        t = end - 10_000
        s.add(ext(t, REC_MPI_ENTER, r_fin))
        s.add(ext(t + 1_000, REC_MPI_CLOCK, 1, [t + 1_000, 0, 2_000]))
        s.add(ext(t + 2_000, REC_MPI_LEAVE, r_fin, [0]))
        s.add(ext(t + 3_000, REC_END, 1))
        calls += 1
        s.close()
    events = 2 * calls
    print(f"{a.dir}: {p} ranks, {iters} iterations, {calls} calls, {events} MPI events, "
          f"{p * iters} messages, {p * (iters // 8)} collective calls")


if __name__ == "__main__":
    main()

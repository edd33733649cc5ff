#!/usr/bin/env python3
"""gen_corpus.py OUTDIR - small valid stream files (format v1, src/format/format.h) as fuzz seeds.

Each file exercises records the real runs of make-corpus.sh may lack: function enter/exit,
every extended record type, counter snapshots of two groups, several chunks (one empty), lost
records, every end reason, a stream cut inside its last chunk, a header larger than 64 bytes.
"""
import os
import struct
import sys

KIND_ENTER, KIND_EXIT, KIND_EXT = 0, 1, 2
(REGION_DEF, REGION_ENTER, REGION_LEAVE, CLOCK_SYNC, COUNTERS, LOST, STREAM_END,
 THREAD_NAME) = range(1, 9)
END_EXIT, END_THREAD_EXIT, END_EXEC, END_SIGNAL = 1, 2, 3, 4
SAMPLE_GROUP, SAMPLE, TASK, THROTTLE, SAMPLE_TOTALS = range(9, 14)  # samples files only
TASK_FORK, TASK_EXIT, TASK_COMM, TASK_EXEC = 1, 2, 3, 4
FEAT_SAMPLES, SAMPLE_KERNEL = 8, 1
NO_GROUP = 0xFFFFFFFF
CHUNK_MAGIC = 0x4B435350


def header(pid, tid, nevents=0, clock=2, size=64, image=0, rank=-1, features=1):
    h = struct.pack("<8sIIQIIiIQQII", b"PSCSTRM1", 1, size, features, pid, tid, rank, clock,
                    1000, 500, nevents, image)
    return h + bytes(size - len(h))


def w0(ticks, kind):
    return (ticks << 2) | kind


def ext(ticks, rtype, arg=0, payload=()):
    words = [w0(ticks, KIND_EXT), rtype | ((2 + len(payload)) << 16) | (arg << 32)]
    return words + list(payload)


def text(s):
    b = s.encode() + b"\0"
    b += bytes(-len(b) % 8)
    return list(struct.unpack("<%dQ" % (len(b) // 8), b))


def chunk(seq, words):
    return struct.pack("<IIQ", CHUNK_MAGIC, 8 * len(words), seq) + struct.pack(
        "<%dQ" % len(words), *words)


def clock(ticks):
    return ext(ticks, CLOCK_SYNC, 0, [ticks * 2])


def regions_counters():
    """Two events in group 0 and one in group 1, one not opened; nested regions."""
    layout = [0, 0, 1, NO_GROUP | (((-2) & 0xFFFFFFFF) << 32)]

    def snap(t):
        return [2, t, t, 10 * t, 20 * t, 1, t, t // 2, 30 * t]

    c0 = (clock(1000) + ext(1001, THREAD_NAME, 0, text("worker-1")) +
          ext(1002, COUNTERS, 4, layout) + ext(1003, REGION_DEF, 0, text("outer")) +
          ext(1003, REGION_DEF, 1, text("inner-region-name")) +
          ext(1004, REGION_ENTER, 0, snap(1004)) + ext(1005, REGION_ENTER, 1, snap(1005)))
    c1 = (clock(2000) + ext(2001, REGION_LEAVE, 1, snap(2001)) + ext(2002, REGION_ENTER, 1) +
          ext(2003, REGION_LEAVE, 1) + ext(2004, REGION_LEAVE, 0, snap(2004)) +
          ext(2005, LOST, 0, [3, 48]) + ext(2006, STREAM_END, END_EXIT))
    return header(100, 100, nevents=4, features=5) + chunk(0, c0) + chunk(1, c1)


def functions():
    """Nested function calls over three chunks, the middle one empty."""
    c0 = clock(10) + [w0(11, KIND_ENTER), 0x401000, w0(12, KIND_ENTER), 0x401200,
                      w0(13, KIND_EXIT), 0x401200, w0(14, KIND_ENTER), 0x7F0000001000]
    c2 = clock(20) + [w0(21, KIND_EXIT), 0x7F0000001000, w0(22, KIND_EXIT), 0x401000]
    c2 += ext(23, STREAM_END, END_THREAD_EXIT)
    return header(200, 201, features=3) + chunk(0, c0) + chunk(1, []) + chunk(2, c2)


def end_reason(reason, pid):
    c0 = clock(5) + ext(6, THREAD_NAME, 0, text("main")) + ext(7, STREAM_END, reason)
    return header(pid, pid, clock=1) + chunk(0, c0)


def cut():
    """A whole chunk, then one cut short (as a SIGKILL while writing leaves it)."""
    c0 = clock(1) + ext(2, REGION_DEF, 3, text("r")) + ext(3, REGION_ENTER, 3)
    c1 = clock(4) + ext(5, REGION_LEAVE, 3)
    return (header(300, 301) + chunk(0, c0) + chunk(1, c1))[:-8]


def big_header():
    """A header of 72 bytes: readers skip to header_size."""
    return header(400, 400, size=72, image=1, rank=3, clock=3) + chunk(0, clock(9))


def samples():
    """A samples file (samples.<pid>): groups {0, 1} and {2} of three events, samples with their
    values (one in the kernel, one with a call chain), every task event, throttling, a loss and
    the totals (the third event's count all ones: not counted), over two chunks. Ticks are
    CLOCK_MONOTONIC ns (clock source 1), as the launcher writes them."""
    me, pt = 700 | (700 << 32), 700 | (701 << 32)
    c0 = (ext(100, CLOCK_SYNC, 0, [100]) + ext(100, SAMPLE_GROUP, 0, [0, 1]) +
          ext(100, SAMPLE_GROUP, 1, [2]) + ext(101, TASK, TASK_EXEC, [me] + text("prog")) +
          ext(102, TASK, TASK_FORK, [pt, me]) +
          ext(103, SAMPLE, 0, [pt, 0x401000, 1, 2, 50, 50, 1000, 7]) +
          ext(104, SAMPLE, 1, [pt, 0x401100, 1 | (2 << 32), 1, 60, 60, 3, 0x401200, 0x401300]))
    kernel_ip = 0xFFFFFFFF81000000
    c1 = (ext(200, CLOCK_SYNC, 0, [200]) + ext(201, THROTTLE, 1, [pt]) +
          ext(202, THROTTLE, 0, [pt]) + ext(203, TASK, TASK_COMM, [pt] + text("worker")) +
          ext(204, LOST, 0, [2, 0]) +
          ext(205, SAMPLE, 0, [pt, kernel_ip, SAMPLE_KERNEL << 16, 2, 90, 80, 2000, 9]) +
          ext(206, TASK, TASK_EXIT, [pt, me]) +
          ext(207, SAMPLE_TOTALS, 3, [2100, 100, 90, 10, 100, 90, (1 << 64) - 1, 100, 90]) +
          ext(208, STREAM_END, END_EXIT))
    h = header(700, 0, nevents=3, clock=1, features=FEAT_SAMPLES)
    return h + chunk(0, c0) + chunk(1, c1)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "gen-regions-counters": regions_counters(),
        "gen-functions": functions(),
        "gen-end-exec": end_reason(END_EXEC, 500),
        "gen-end-signal": end_reason(END_SIGNAL | (9 << 8), 501),
        "gen-cut": cut(),
        "gen-big-header": big_header(),
        "gen-no-chunks": header(600, 601),
        "gen-samples": samples(),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Experiments written by hand (Python, in the stream format of docs/format.md) that crashed the
# commands, now read to the end:
#  - calls of function 0xffffffffffffffff (and 0xffff...fe, 0): report (table, tree, JSON,
#    CSV), html, select, energy exited with SIGSEGV (the profile took that address for an
#    empty cache slot);
#  - a proc file naming rank 0 and a stream without MPI records: export --format otf2 exited
#    with SIGSEGV (no MPI model behind the rank);
#  - a recursion 200,000 calls deep (f calling f) and one through two functions (g, h): report
#    --tree overflowed the stack, and its text grew with the depth squared (1.6 GB at 50,000):
#    now 1 folded line for f, one line per level for g/h, every line of bounded length.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

# gen DIR KIND: one process (pid 100, rank RANK) with one thread, monotonic clock
gen() {
	python3 - "$@" <<'PY'
import json, os, struct, sys
d, kind = sys.argv[1], sys.argv[2]
START = 10_000_000_000
rank = 0 if kind == "rank" else -1
os.makedirs(d)
json.dump({"version": 1, "created_by": "test", "command": ["synthetic"],
           "start_ns": START, "end_ns": START + 10**9}, open(d + "/meta.json", "w"))
json.dump({"version": 1, "pid": 100, "ppid": 1, "rank": rank, "exe": "/synthetic",
           "state": "exited", "clock": "monotonic", "calibration": [[str(START), str(START)]],
           "events": [], "paranoid": 2, "lost_records": 0, "error": ""},
          open(d + "/proc.100.json", "w"))
t = START + 1000
w = [(START << 2) | 2, 4 | (3 << 16), START]
def call(enter, addr):
    global t
    t += 1
    w.extend([(t << 2) | (0 if enter else 1), addr])
if kind in ("ffff", "rank"):
    for a in (0xffffffffffffffff, 0xfffffffffffffffe, 0, 0x401000):
        call(1, a)
        t += 1000
        call(0, a)
elif kind == "deep":
    n = 200000
    for i in range(n):
        call(1, 0x401000)
    for i in range(n):
        call(0, 0x401000)
    for i in range(n):
        call(1, 0x402000 if i % 2 else 0x403000)
    for i in reversed(range(n)):
        call(0, 0x402000 if i % 2 else 0x403000)
w.extend([((t + 1) << 2) | 2, 7 | (2 << 16) | (1 << 32)])
with open(d + "/stream.100.100", "wb") as f:
    f.write(struct.pack("<8sIIQIIiIQQII", b"PSCSTRM1", 1, 64, 2, 100, 100, rank, 1, START,
                        START, 0, 0))
    f.write(struct.pack("<IIQ", 0x4B435350, 8 * len(w), 0))
    f.write(struct.pack(f"<{len(w)}Q", *w))
PY
}

# no_crash NAME ARGS..: perfscope ARGS.. exits 0
no_crash() {
	local name=$1
	shift
	run "$name" "$PERFSCOPE" "$@"
	expect_eq 0 "$RC" "perfscope $*: exit status"
	[ "$RC" -eq 0 ] || show "$name"
}

gen "$T/ffff" ffff
no_crash report report "$T/ffff"
expect_grep "[unknown]+0xffffffffffffffff      1" "$T/report.out" "report: the call of 0xffff...ff"
expect_grep "[unknown]+0xfffffffffffffffe      1" "$T/report.out" "report: the call of 0xffff...fe"
no_crash tree report "$T/ffff" --tree
no_crash csv report "$T/ffff" --csv
expect_eq 5 "$(wc -l <"$T/csv.out")" "report --csv: 4 functions and the header"
no_crash json report "$T/ffff" --json
no_crash html html "$T/ffff" -o "$T/ffff.html"
no_crash select select "$T/ffff" --top 2 -o "$T/ffff.filter"
for i in $(seq 1 100); do echo 10; done >"$T/power.txt"
no_crash energy energy "$T/ffff" --power "$T/power.txt"

gen "$T/rank" rank
no_crash otf2 export "$T/rank" --format otf2 -o "$T/rank.otf2"
expect_grep "4 function calls" "$T/otf2.err" "export --format otf2: every call"
expect_file "$T/rank.otf2/traces.otf2" "the archive"
if command -v otf2-print >/dev/null 2>&1; then
	run print otf2-print "$T/rank.otf2/traces.otf2"
	expect_eq 0 "$RC" "otf2-print reads the archive"
	expect_eq 4 "$(grep -c '^ENTER ' "$T/print.out")" "otf2-print: 4 enters"
fi

gen "$T/deep" deep
no_crash deep report "$T/deep" --tree
expect_grep "[unknown]+0x401000  [recursion: 200,000 levels]" "$T/deep.out" "report --tree: f folded"
expect_eq $((4 + 1 + 200000)) "$(wc -l <"$T/deep.out")" "report --tree: f on one line, g and h a line per level"
no_crash deep-all report "$T/deep" --tree --no-fold-recursion
expect_eq $((3 + 400000)) "$(wc -l <"$T/deep-all.out")" "report --tree --no-fold-recursion: a line per call path"
expect_cmp "$(wc -c <"$T/deep-all.out")" "<" $((160 * 400000)) "report --tree --no-fold-recursion: at most 160 bytes per line"
expect_eq 0 "$(awk 'length($0) > 160' "$T/deep-all.out" | wc -l)" "no line over 160 characters"
expect_grep "[depth 199999] [unknown]+0x40" "$T/deep-all.out" "the deepest lines say their depth"

finish

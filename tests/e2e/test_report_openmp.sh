#!/usr/bin/env bash
# report --openmp on experiments written by hand (Python, in the stream format of
# docs/format.md): one process, a team of 4 running one parallel region twice, thread k
# arriving at the closing barrier (k + 1) x 100 ns after the start in the first instance and
# (4 - k) x 100 ns in the second; thread 1 waits 20 ns for a lock in each. Recorded as
# libgomp records it (the barrier derived from the arrivals) and as OMPT does (its barrier
# records): the same CSV, with exact values. An experiment without OpenMP records says so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

# gen DIR SHAPE RANK [SITE]: SHAPE gomp, ompt, none or killed (gomp, then an instance that
# began and never ended, the encountering thread's stream cut short); RANK -1 or the MPI rank of the process;
# SITE the parallel construct's call site (default 0x401000)
gen() {
	python3 - "$@" <<'PY'
import json, os, struct, sys
d, shape, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
site = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0x401000
START, PID = 10_000_000_000, 100
os.makedirs(d)
json.dump({"version": 1, "created_by": "test", "command": ["synthetic"],
           "start_ns": START, "end_ns": START + 10_000}, open(d + "/meta.json", "w"))
json.dump({"version": 1, "pid": PID, "ppid": 1, "rank": rank, "exe": "/synthetic",
           "state": "exited", "clock": "monotonic", "calibration": [[str(START), str(START)]],
           "events": [], "paranoid": 2, "lost_records": 0, "error": ""},
          open(d + "/proc.%d.json" % PID, "w"))
streams = [[] for _ in range(4)]
def ext(k, t, typ, arg, *payload):
    streams[k].extend([((START + t) << 2) | 2, typ | ((2 + len(payload)) << 16) | (arg << 32),
                       *payload])
for k in range(4):
    ext(k, 0, 4, 0, START)  # clock sync
    if shape == "none":
        streams[k].extend([((START + 10) << 2) | 0, 0x401000, ((START + 20) << 2) | 1, 0x401000])
def instance(pid_, t0, arrive):
    last = max(arrive)
    ext(0, t0, 21, 4, pid_, site, 0x402000, 1)  # PARALLEL_BEGIN
    for k in range(4):
        ext(k, t0, 23, k, pid_, 4)  # ITASK_BEGIN
        if k == 1:
            ext(k, t0 + 50, 25, 5, 0x403000, 0xbeef)  # SYNC_ENTER LOCK
            ext(k, t0 + 70, 26, 5)
        if k == 2:
            ext(k, arrive[k], 27, 2, 0x404000, START + t0, 3, 30)  # WORK: 3 chunks, 30 its
        if shape == "ompt":
            ext(k, arrive[k], 25, 1, 0x405000, 0)  # SYNC_ENTER BARRIER_IMPLICIT
            ext(k, last, 26, 1)
        ext(k, last if shape == "ompt" else arrive[k], 24, k, pid_)  # ITASK_END
    ext(0, last, 22, 4, pid_)  # PARALLEL_END
if shape != "none":
    instance(7, 2000, [2100, 2200, 2300, 2400])
    instance(8, 5000, [5400, 5300, 5200, 5100])
if shape == "killed":
    ext(0, 8000, 21, 4, 9, site, 0x402000, 1)
    for k in range(4):
        ext(k, 8000, 23, k, 9, 4)
for k in range(4):
    if shape != "killed" or k:
        streams[k].extend([((START + 9000) << 2) | 2, 7 | (2 << 16) | (1 << 32)])
    with open(d + "/stream.%d.%d" % (PID, PID + k), "wb") as f:
        f.write(struct.pack("<8sIIQIIiIQQII", b"PSCSTRM1", 1, 64, 2, PID, PID + k, rank, 1,
                            START, START, 0, 0))
        f.write(struct.pack("<IIQ", 0x4B435350, 8 * len(streams[k]), 0))
        f.write(struct.pack(f"<{len(streams[k])}Q", *streams[k]))
PY
}

gen "$T/gomp" gomp -1
gen "$T/ompt" ompt -1
gen "$T/none" none -1
gen "$T/hybrid" gomp 3

run csv "$PERFSCOPE" report "$T/gomp" --openmp --csv
expect_eq 0 "$RC" "report --openmp --csv: exit status"
[ "$RC" -eq 0 ] || show csv
cat >"$T/want.csv" <<'CSV'
region,thread,calls,time_ns,work_ns,barrier_ns,sync_ns,lock_ns,other_ns,chunks,iterations,tasks_created,tasks_completed
0x401000,0,2,800,500,300,0,0,0,0,0,0,0
0x401000,1,2,800,460,300,0,40,0,0,0,0,0
0x401000,2,2,800,500,300,0,0,0,6,60,0,0
0x401000,3,2,800,500,300,0,0,0,0,0,0,0

region,level,calls,unfinished,threads,team,time_ns,work_ns,barrier_ns,work_max_ns,work_mean_ns,imbalance_pct,load_balance_pct,region_eff_pct
0x401000,1,2,0,4,4,800,1960,1200,500,490.0,2.000000,98.000000,61.250000

pid,tid,role,span_ns,parallel_ns,serial_ns,parallel_pct
100,100,initial,9000,800,8200,8.888889
100,101,worker,9000,800,8200,8.888889
100,102,worker,9000,800,8200,8.888889
100,103,worker,9000,800,8200,8.888889
CSV
if ! diff "$T/want.csv" "$T/csv.out" >"$T/diff.out"; then
	fail "report --openmp --csv: not the expected table"
	cat "$T/diff.out" >&2
fi
expect_eq 0 "$(wc -c <"$T/csv.err")" "report --openmp --csv: nothing on stderr"

run ompt "$PERFSCOPE" report "$T/ompt" --openmp --csv
expect_eq 0 "$RC" "OMPT shape: exit status"
if ! cmp -s "$T/csv.out" "$T/ompt.out"; then
	fail "the OMPT shape gives another CSV than the libgomp shape"
	diff "$T/csv.out" "$T/ompt.out" >&2 || true
fi

run long "$PERFSCOPE" report "$T/gomp" --openmp --format long
expect_eq 0 "$RC" "report --openmp --format long: exit status"
python3 "$PSC_SOURCE/tests/e2e/long_vs_csv.py" --blocks 3 "$T/csv.out" "$T/long.out" ||
	fail "report --openmp: the long CSV is not the CSV's cells"

run json "$PERFSCOPE" report "$T/gomp" --openmp --json
expect_eq 0 "$RC" "report --openmp --json: exit status"
python3 - "$T/json.out" <<'PY' || fail "report --openmp --json: not the expected values"
import json, sys
j = json.load(open(sys.argv[1]))
assert [r["barrier_ns"] for r in j["rows"]] == [300, 300, 300, 300], j["rows"]
assert [r["work_ns"] for r in j["rows"]] == [500, 460, 500, 500], j["rows"]
assert j["regions"][0]["site"] == 0x401000 and j["regions"][0]["calls"] == 2, j["regions"]
assert abs(j["regions"][0]["region_eff_pct"] - 61.25) < 1e-9, j["regions"]
assert len(j["threads"]) == 4 and j["caveats"] == [], j
PY

run text "$PERFSCOPE" report "$T/gomp" --openmp
expect_eq 0 "$RC" "report --openmp: exit status"
expect_grep "OpenMP: 1 parallel region, 4 threads" "$T/text.out" "report --openmp: the heading"
expect_grep "Parallel regions: imbalance" "$T/text.out" "report --openmp: the regions' table"

run hybrid "$PERFSCOPE" report "$T/hybrid" --openmp --csv
expect_eq 0 "$RC" "hybrid: exit status"
expect_eq "rank,region,thread,calls,time_ns,work_ns,barrier_ns" \
	"$(head -1 "$T/hybrid.out" | cut -d, -f1-7)" "hybrid: the rank comes first"
expect_eq "3,0x401000,1,2,800,460,300" "$(sed -n 3p "$T/hybrid.out" | cut -d, -f1-7)" \
	"hybrid: rank 3's thread 1"

run none "$PERFSCOPE" report "$T/none" --openmp
expect_eq 0 "$RC" "no OpenMP records: exit status"
expect_grep "no OpenMP records (was the program built with -fopenmp" "$T/none.err" \
	"no OpenMP records: said on stderr"
expect_eq 0 "$(wc -c <"$T/none.out")" "no OpenMP records: no text"
run none-csv "$PERFSCOPE" report "$T/none" --openmp --csv
expect_eq "region,thread,calls,time_ns,work_ns,barrier_ns" \
	"$(head -1 "$T/none-csv.out" | cut -d, -f1-6)" "no OpenMP records: the CSV's header"

# a region named from the symbols: the call site in tri() of a program built here, its maps
# written as the runtime writes them
if command -v cc >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 &&
	command -v objdump >/dev/null 2>&1; then
	cat >"$T/tri.c" <<'C'
void work(int n);
void tri(int n)
{
	work(n);
}
void work(int n) { (void)n; }
int main(void) { tri(3); return 0; }
C
	cc -g -O0 -no-pie -fno-pie -o "$T/tri" "$T/tri.c"
	# the return address of tri's call of work: the instruction after the call
	ra=$(objdump -d --no-show-raw-insn "$T/tri" | awk '/<tri>:/ { f = 1 } f && /call/ { c = 1; next } c { sub(":", "", $1); print $1; exit }')
	gen "$T/named" gomp -1 "0x$ra"
	readelf -lW "$T/tri" | python3 -c '
import sys
for l in sys.stdin:
    f = l.split()
    if f and f[0] == "LOAD":
        o, s = int(f[1], 16), int(f[2], 16)
        e = s + int(f[5], 16)
        s, o, e = s - s % 4096, o - o % 4096, e + (4096 - e % 4096) % 4096
        print("%08x-%08x r-xp %08x 00:00 0 %s" % (s, e, o, sys.argv[1]))' "$T/tri" >"$T/named/maps.100"
	run named "$PERFSCOPE" report "$T/named" --openmp --csv
	expect_eq 0 "$RC" "named: exit status"
	expect_eq "tri@tri.c:4,0,2,800,500,300" "$(sed -n 2p "$T/named.out" | cut -d, -f1-6)" \
		"the region named function@file:line"
else
	note "no cc, readelf or objdump: the region named from the symbols is not checked"
fi

# a killed run: the third instance never ended: counted as unfinished, said
gen "$T/killed" killed -1
run killed "$PERFSCOPE" report "$T/killed" --openmp --csv
expect_eq 0 "$RC" "killed: exit status"
expect_eq "0x401000,1,2,1,4,4,800" "$(sed -n 8p "$T/killed.out" | cut -d, -f1-7)" \
	"killed: 2 calls, 1 unfinished"
expect_eq "0x401000,0,2,800,500,300" "$(sed -n 2p "$T/killed.out" | cut -d, -f1-6)" \
	"killed: the instances that ended"
expect_grep "1 instance of parallel regions did not end (a killed run?)" "$T/killed.err" \
	"killed: said on stderr"
run killed-text "$PERFSCOPE" report "$T/killed" --openmp
expect_grep "  ! 1 instance of parallel regions did not end" "$T/killed-text.out" \
	"killed: said under the text"

run bad "$PERFSCOPE" report "$T/gomp" --openmp --tree
expect_eq 2 "$RC" "--openmp --tree: a usage error"

finish

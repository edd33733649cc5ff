#!/usr/bin/env bash
# record --mpi, both launch forms (docs/cmd-record.md "MPI programs"):
#   perfscope record --mpi -o DIR -- mpirun -np 4 ring       (the ranks inherit the preload)
#   mpirun -np 4 perfscope record --mpi -o DIR -- ring        (every rank's record shares DIR)
# Each gives one experiment with the 4 ranks, "mpi": true, one load log naming the 4 ranks
# with well-formed samples; the rank form writes the job's id and never takes a user's
# directory; --load=0 writes no load log. The third form, a program linked with
# -lperfscope-mpi -lperfscope and run with PERFSCOPE_OUT (no preload), records the 4 ranks
# and their exact traffic. The load sampler's period and rows are checked, and the per-rank
# shares relative to each other, on a rank that spins and three that sleep.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

require_cmd mpirun python3
ring=$EX/mpi/ring
[ -x "$ring" ] || skip "$ring was not built (no MPI at build time)"
[ -e "$PSC_BUILD/libperfscope-mpi.so.0" ] || [ -e "$PSC_BUILD/libperfscope-mpi.so" ] ||
	skip "libperfscope-mpi.so was not built"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# the world ranks of DIR's proc files, sorted, comma-separated
ranks_of() {
	python3 - "$1" <<'PY'
import glob, json, sys
r = []
for p in glob.glob(sys.argv[1] + "/proc.*.json"):
    with open(p) as f:
        v = json.load(f).get("rank", -1)
    if v >= 0:
        r.append(v)
print(",".join(str(x) for x in sorted(r)))
PY
}

# DIR's load logs checked: "NFILES RANKS NSAMPLES" or the first problem found
load_of() {
	python3 - "$1" <<'PY'
import glob, sys
files = sorted(glob.glob(sys.argv[1] + "/load.*"))
ranks, samples = [], 0
for p in files:
    lines = open(p).read().split("\n")
    if lines[0] != "# perfscope load 1":
        print("bad magic in", p); sys.exit()
    head = [l for l in lines if l.startswith("# rank ")]
    rk = [int(l.split()[2]) for l in head]
    ranks += rk
    cols = "time_ns,host," + ",".join("rank%d" % r for r in rk)
    if cols not in lines:
        print("no column row", cols, "in", p); sys.exit()
    rows = [l for l in lines[lines.index(cols) + 1:] if l]
    prev = 0
    for row in rows:
        f = row.split(",")
        t = int(f[0])
        if len(f) != 2 + len(rk) or t <= prev or any(v != "-" and float(v) < 0 for v in f[1:]):
            print("bad row", row, "in", p); sys.exit()
        if f[1] != "-" and float(f[1]) > 1:
            print("host share above 1:", row); sys.exit()
        prev = t
    samples += len(rows)
print(len(files), ",".join(str(r) for r in sorted(ranks)), "samples" if samples > 0 else "none")
PY
}

# 1. record launches mpirun
d1=$T/outer
run outer "$PERFSCOPE" record --mpi --load=20 -o "$d1" -- mpirun -np 4 "$ring" -b 20 -n 3
expect_eq 0 "$RC" "record --mpi -- mpirun: exit status"
expect_eq true "$(json_eval "$d1/meta.json" 'd["mpi"]')" "outer: meta.json mpi"
expect_eq "0,1,2,3" "$(ranks_of "$d1")" "outer: the ranks' proc files"
expect_eq "1 0,1,2,3 samples" "$(load_of "$d1")" "outer: one load log with the 4 ranks"
expect_grep "see: perfscope mpi" "$T/outer.err" "outer: the closing line points to perfscope mpi"

# 2. mpirun launches one record per rank, into one directory
d2=$T/inner
run inner mpirun -np 4 "$PERFSCOPE" record --mpi --load=20 -o "$d2" -- "$ring" -b 20 -n 3
expect_eq 0 "$RC" "mpirun -- record --mpi: exit status"
expect_eq true "$(json_eval "$d2/meta.json" 'd["mpi"]')" "inner: meta.json mpi"
expect_ne "" "$(json_eval "$d2/meta.json" 'd["mpi_job"]')" "inner: meta.json mpi_job"
expect_eq 0 "$(json_eval "$d2/meta.json" 'd["exit_status"]')" "inner: rank 0's exit status"
expect_eq "0,1,2,3" "$(ranks_of "$d2")" "inner: the ranks' proc files"
expect_eq "1 0,1,2,3 samples" "$(load_of "$d2")" "inner: one load log with the 4 ranks"
expect_eq 1 "$(grep -c "experiment in" "$T/inner.err" || true)" "inner: one closing line (rank 0)"

# 3. again into the same directory: rank 0 refuses it without --force, the job fails
run again mpirun -np 2 "$PERFSCOPE" record --mpi -o "$d2" -- "$ring"
expect_ne 0 "$RC" "inner again without --force: exit status"
expect_grep "exists; not overwriting it" "$T/again.err" "inner again: rank 0 says why"
expect_eq "0,1,2,3" "$(ranks_of "$d2")" "inner again: the old experiment is intact"

# 4. a user's directory: --force refuses one without an experiment, and keeps what is not an
# experiment file beside one
d3=$T/user
mkdir "$d3" && echo keep >"$d3/notes.txt"
run user0 mpirun -np 2 "$PERFSCOPE" record --mpi --force -o "$d3" -- "$ring" -b 1
expect_ne 0 "$RC" "record --force into a user's directory without an experiment: exit status"
expect_grep "holds no experiment" "$T/user0.err" "user dir without an experiment: rank 0 says why"
mv "$d3/notes.txt" "$T/notes.txt"
run user1 mpirun -np 2 "$PERFSCOPE" record --mpi --force -o "$d3" -- "$ring" -b 1
expect_eq 0 "$RC" "record --force into an empty directory: exit status"
mv "$T/notes.txt" "$d3/notes.txt"
run user mpirun -np 2 "$PERFSCOPE" record --mpi --force -o "$d3" -- "$ring" -b 1
expect_eq 0 "$RC" "record --force into a user's directory: exit status"
expect_eq keep "$(cat "$d3/notes.txt")" "user's file kept"
expect_eq "0,1" "$(ranks_of "$d3")" "user dir: the ranks' proc files"

# 5. --load=0: no load log
d4=$T/noload
run noload "$PERFSCOPE" record --mpi --load=0 -o "$d4" -- mpirun -np 2 "$ring" -b 1
expect_eq 0 "$RC" "--load=0: exit status"
expect_eq "" "$(cd "$d4" && ls load.* 2>/dev/null || true)" "--load=0: no load log"

# 6. clock offsets: rank 1's clock runs 5 ms ahead (testing only); rank 0's ping-pong finds
# it at MPI_Init and MPI_Finalize (one record per rank and phase), the others near 0
d5=$T/skew
run skew mpirun -np 3 "$PERFSCOPE" record --mpi --load=0 -o "$d5" -- sh -c \
	'[ "$OMPI_COMM_WORLD_RANK" != 1 ] || export PERFSCOPE_TEST_CLOCK_SKEW=5000000:0; exec "$0" -b 1' "$ring"
expect_eq 0 "$RC" "skewed rank: exit status"
for s in "$d5"/stream.*; do "$PERFSCOPE" dump "$s"; done >"$T/skew.dump" 2>&1 || true
# an offset measured by ping-pong is right within half its round trip (a loaded machine
# stretches that one): skewed = -5 ms, zero = 0, each within rtt / 2 + 100 us
clock_offsets() {
	grep "mpi-clock *phase=$1 " "$T/skew.dump" |
		sed 's/.*offset_ns=\(-*[0-9]*\) rtt_ns=\([0-9]*\).*/\1 \2/' | sort -n |
		awk 'function abs(x) { return x < 0 ? -x : x }
		     { tol = $2 / 2 + 100000
		       printf "%s%s", sep, abs($1 + 5000000) <= tol ? "skewed" : (abs($1) <= tol ? "zero" : $1 "+-" tol)
		       sep = "," }'
}
expect_eq "skewed,zero,zero" "$(clock_offsets init)" "skew: offsets at MPI_Init"
expect_eq "skewed,zero,zero" "$(clock_offsets finalize)" "skew: offsets at MPI_Finalize"

# 7. the link form (README "MPI"): ring linked with -lperfscope-mpi -lperfscope, no preload,
# PERFSCOPE_OUT names the experiment; 4 ranks, 2 matched messages on every ring pair
if command -v mpicc >/dev/null 2>&1; then
	san=()
	[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
	mpicc -g -O1 "$PSC_SOURCE/examples/mpi/ring.c" -o "$T/ring_linked" -L"$PSC_BUILD" \
		-lperfscope-mpi -lperfscope -Wl,-rpath,"$PSC_BUILD" "${san[@]}" >"$T/linked.cc.log" 2>&1 ||
		die "cannot link ring with -lperfscope-mpi: $(cat "$T/linked.cc.log")"
	d6=$T/linked
	# sanitizer builds: Open MPI's own allocations are not the program's leaks (as record sets)
	run linked env -u LD_PRELOAD PERFSCOPE_OUT="$d6" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout -k 5 60 \
		mpirun -np 4 -x PERFSCOPE_OUT -x ASAN_OPTIONS "$T/ring_linked" -b 1 -n 2
	expect_eq 0 "$RC" "linked ring: exit status"
	expect_eq "0,1,2,3" "$(ranks_of "$d6")" "linked: the ranks' proc files"
	run linked_traffic "$PERFSCOPE" mpi "$d6" --traffic --csv
	expect_eq 0 "$RC" "linked: perfscope mpi --traffic exit status"
	for k in 0 1 2 3; do
		j=$(((k + 1) % 4))
		expect_eq "2 2 16" "$(csv_get "$T/linked_traffic.out" messages sender="$k" receiver="$j") $(csv_get \
			"$T/linked_traffic.out" matched sender="$k" receiver="$j") $(csv_get "$T/linked_traffic.out" \
			bytes sender="$k" receiver="$j")" "linked: messages, matched, bytes $k -> $j"
	done
	expect_eq 5 "$(awk '$0 == "" { exit } { n++ } END { print n + 0 }' "$T/linked_traffic.out")" \
		"linked: traffic rows (header and the 4 ring pairs)"
else
	note "mpicc is not installed: the link form is not checked"
fi

# 8. the load sampler's values: threads -w 600 has rank 0 spin 600 ms (outside MPI) while
# ranks 1-3 sleep. Exact: the log's period_ns is the one asked for (20 ms, and 100 ms by
# default); every row has the header's columns and increasing times; and there are never more
# rows than absolute deadlines allow: each deadline comes a period after the previous one and
# after the previous line was taken (load.c skips missed ones), so N rows (the last one at
# MPI_Finalize) span more than (N - 3) periods, however late the sampler thread runs.
# Relative, not absolute shares: in the rows inside the spin (the first and the last two left
# out) rank 0's own CPU share, averaged over the time they cover, is more than 4 x each
# sleeper's. Why this holds on a loaded 2-CPU CI: a spinning process is runnable the whole
# window, so the scheduler gives it a fair share of the CPUs (2/N with N runnable tasks,
# >= 0.1 even with 20), and load only makes that smaller, never 0; a sleeper is not runnable,
# so its share stays near 0 whatever the load (load cannot make it use CPU). An average over
# the window (not a median of 20 ms rows, each a multiple of 0.5 with 10 ms ticks) sums the
# ticks, so the spin's share cannot round to 0. No spacing or absolute share is asserted; the
# median spacing is only noted.
thr=$EX/mpi/threads
if [ -x "$thr" ]; then
	# load_values DIR: "PERIOD_NS ROWS_OK RATIO_OK" of DIR's one load log, then a note line
	load_values() {
		python3 - "$1" <<'PY'
import csv, glob, statistics, sys
files = glob.glob(sys.argv[1] + "/load.*")
if len(files) != 1:
    print("load logs:", len(files)); sys.exit()
lines = open(files[0]).read().split("\n")
period = int([l for l in lines if l.startswith("# period_ns ")][0].split()[2])
start = [i for i, l in enumerate(lines) if l.startswith("time_ns,")][0]
rd = list(csv.reader(l for l in lines[start:] if l))
head, rows = rd[0], rd[1:]
t = [int(r[0]) for r in rows]
gaps = [b - a for a, b in zip(t, t[1:])]
ok = all(len(r) == len(head) for r in rows) and all(g > 0 for g in gaps) and len(rows) >= 5
ok = ok and len(rows) < (t[-1] - t[0]) / period + 3
mid = range(1, len(rows) - 2)
def share(name):
    # CPU seconds over the rows' intervals / the time they cover (row i covers t[i-1]..t[i])
    k = head.index(name)
    vals = [(float(rows[i][k]) if rows[i][k] != "-" else 0.0, t[i] - t[i - 1]) for i in mid]
    total = sum(dt for _, dt in vals)
    return sum(v * dt for v, dt in vals) / total if total else 0.0
if len(rows) < 5:
    print(period, "too few rows:", len(rows)); sys.exit()
busy = share("rank0")
idle = max(share("rank%d" % k) for k in (1, 2, 3))
print(period, "rows" if ok else "rows=%d/span=%d" % (len(rows), t[-1] - t[0]),
      "ratio" if busy > 4 * idle else "busy=%.3f,idle=%.3f" % (busy, idle))
print("rows %d, median spacing %d ns, spinning rank %.3f, sleepers <= %.3f"
      % (len(rows), statistics.median(gaps), busy, idle))
PY
	}
	run load20 "$PERFSCOPE" record --mpi --load=20 -o "$T/load20" -- mpirun -np 4 "$thr" -n 5 -w 600
	expect_eq 0 "$RC" "--load=20 threads -w 600: exit status"
	load_values "$T/load20" >"$T/load20.values"
	expect_eq "20000000 rows ratio" "$(head -n 1 "$T/load20.values")" "--load=20: period, rows, share ratio"
	note "--load=20: $(sed -n 2p "$T/load20.values")"
	run loaddef "$PERFSCOPE" record --mpi -o "$T/loaddef" -- mpirun -np 4 "$thr" -n 5 -w 600
	expect_eq 0 "$RC" "default load: exit status"
	load_values "$T/loaddef" >"$T/loaddef.values"
	expect_eq "100000000 rows ratio" "$(head -n 1 "$T/loaddef.values")" "default load: period, rows, share ratio"
	note "default load: $(sed -n 2p "$T/loaddef.values")"
else
	note "$thr was not built: the load sampler's values are not checked"
fi

# 9. usage errors
run noload_mpi "$PERFSCOPE" record --load=10 -o "$T/x" -- true
expect_eq 2 "$RC" "--load without --mpi: exit status"
expect_grep "needs --mpi" "$T/noload_mpi.err" "--load without --mpi: message"
run badload "$PERFSCOPE" record --mpi --load=-1 -o "$T/x" -- true
expect_eq 2 "$RC" "--load=-1: exit status"
[ ! -e "$T/x" ] || fail "a usage error created the directory"

# 10. more to forward than fits (the user's own OMPI_MCA_mca_base_env_list, 6000 bytes): one
# line naming it, exit 2, no experiment directory left
run toolong env OMPI_MCA_mca_base_env_list="$(printf 'A%.0s' $(seq 6000))" \
	"$PERFSCOPE" record --mpi -o "$T/toolong" -- /bin/true
expect_eq 2 "$RC" "record --mpi with a 6000-byte OMPI_MCA_mca_base_env_list: exit status"
expect_eq 1 "$(grep -c 'too many variables for mpirun to forward.*shorten OMPI_MCA_mca_base_env_list' "$T/toolong.err")" \
	"the line naming the variable to shorten"
[ ! -e "$T/toolong" ] || fail "record --mpi left $T/toolong behind"

finish

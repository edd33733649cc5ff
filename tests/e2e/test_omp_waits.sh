#!/usr/bin/env bash
# The barrier waits of `report --openmp` against the program's own: examples/omp_tri.c times
# when each thread arrives at the triangular loop's closing barrier and prints, per thread,
# the wait that arrival implies (the last arrival minus its own, arrival_wait_ns). perfscope's
# barrier_ns of that region must equal it within 2 % or 0.5 ms (issue 21), for gcc (libgomp,
# the wait derived from the team's arrivals) and clang (libomp, OMPT's barrier records), at 2
# and 4 threads (4 oversubscribe this machine: the program measures its own truth anyway).
# Thread 0 may have waited longer than its arrival implies, up to when it left the region
# (departure_wait_ns): it resumes late when it was off the CPU as the last thread arrived, and
# OMPT's barrier ends when it resumes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

ROWS=12000
# the triangular loop's region, by the line of its construct (its function is triangle with
# gcc, main with clang, which inlines it)
LINE=$(awk '/^static void triangle/ { f = 1 } f && /#pragma omp parallel/ { print NR; exit }' \
	"$PSC_SOURCE/examples/omp_tri.c")
[ -n "$LINE" ] || die "no parallel construct in triangle() of examples/omp_tri.c"

# pairs NAME THREADS: per thread "OWN GOT LO HI" (the program's arrival wait, perfscope's, and
# the bounds perfscope's must be within: the arrival wait less the tolerance, the longest wait
# the thread saw plus the tolerance)
pairs() {
	local name=$1 t=$2 own got longest
	for ((i = 0; i < t; i++)); do
		own=$(awk -v i="$i" '$1 == "thread" && $2 == i { print $8 }' "$T/$name.out")
		longest=$own
		[ "$i" -eq 0 ] && longest=$(awk -v a="$own" '$1 == "master" { print ($3 > a ? $3 : a) }' \
			"$T/$name.out")
		# the first table (region x thread) only: it ends at the first empty line
		# the region of line LINE (clang inlines triangle: "... (inlined in main)")
		got=$(awk -F, -v i="$i" -v at="omp_tri.c:$LINE" 'NF == 0 { exit }
			(substr($1, length($1) - length(at) + 1) == at ||
			 index($1, at " (inlined in main)")) && $2 == i { print $6 }' \
			"$T/$name-report.out")
		echo "$own ${got:-none} $(awk -v a="$own" -v l="${longest:-0}" 'BEGIN { t = a * 0.02
			t = t > 500000 ? t : 500000; printf "%.0f %.0f\n", a - t, l + t }')"
	done
}

# check NAME PROG THREADS: recorded up to 3 times while a thread was held off the CPU between
# its own clock reading and its arrival at the barrier (4 threads share 2 CPUs here: a time
# slice is longer than the tolerance); the last try is checked whatever happened
check() {
	local name=$1 prog=$2 t=$3 dir=$T/$1.exp try
	for try in 1 2 3; do
		rm -rf "$dir"
		OMP_NUM_THREADS=$t record_or_die "$name" "$dir" -- "$prog" "$ROWS"
		run "$name-report" "$PERFSCOPE" report "$dir" --openmp --csv
		[ "$RC" -eq 0 ] || { show "$name-report"; die "$name: report --openmp exited $RC"; }
		pairs "$name" "$t" >"$T/$name.pairs"
		awk '$2 == "none" || $2 < $3 || $2 > $4 { bad = 1 } END { exit bad }' \
			"$T/$name.pairs" && break
		note "$name try $try: a wait out of its bounds (own, perfscope, low, high):
$(cat "$T/$name.pairs")"
	done
	expect_grep "threads $t rows $ROWS" "$T/$name.out" "$name: the program ran $t threads"
	expect_grep "master departure_wait_ns" "$T/$name.out" "$name: the program's own departure"
	i=0
	while read -r own got lo hi; do
		expect_between "$lo" "$hi" "$got" \
			"$name thread $i: barrier_ns against the program's own ($own)"
		i=$((i + 1))
	done <"$T/$name.pairs"
	expect_eq "$t" "$i" "$name: threads compared"
}

omp_tri_progs
for p in "${PROGS[@]}"; do
	IFS=: read -r cc prog <<<"$p"
	for t in 2 4; do
		check "$cc-$t" "$prog" "$t"
	done
done
finish

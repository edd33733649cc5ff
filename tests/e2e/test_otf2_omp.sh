#!/usr/bin/env bash
# test_otf2_omp.sh - OpenMP in the OTF2 export (issue 21), read by otf2-print, the oracle:
# examples/omp_tri (gcc and clang builds, 2 threads) runs 2 parallel regions. On thread 0 (the
# first location) 2 ThreadFork and 2 ThreadJoin; on each thread 2 ThreadTeamBegin and 2
# ThreadTeamEnd, each ThreadFork at its parallel-begin record's time (dump's) and no event moved
# to keep times in order; the regions of paradigm OpenMP with their roles; with clang (OMPT's barrier
# records) the implicit barrier Enter/Leave on each thread, and thread 0's first wait in it
# from otf2-print's times equal to `report --openmp`'s barrier_ns of the triangular loop's
# region within 1 us; the archive read back by `perfscope report` with the function call
# counts of the experiment.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd otf2-print

ROWS=3000
LINE=$(awk '/^static void triangle/ { f = 1 } f && /#pragma omp parallel/ { print NR; exit }' \
	"$PSC_SOURCE/examples/omp_tri.c")
[ -n "$LINE" ] || die "no parallel construct in triangle() of examples/omp_tri.c"

# count NAME KIND LOC: KIND events on location LOC in otf2-print's output NAME
count() {
	awk -v k="$2" -v l="$3" '$1 == k && $2 == l { n++ } END { print n + 0 }' "$T/$1.out"
}

# calls FILE: "function calls" of a report --csv, the functions only (not OpenMP's names)
calls() {
	awk -F, 'NR > 1 && $1 !~ /^\[/ && $1 !~ /^omp / { print $1, $3 }' "$1" | sort
}

check() {
	local name=$1 prog=$2 dir=$T/$1.exp arc=$T/$1.otf2 l
	OMP_NUM_THREADS=2 record_or_die "$name" "$dir" -- "$prog" "$ROWS"
	run "$name-export" "$PERFSCOPE" export "$dir" --format otf2 -o "$arc"
	expect_eq 0 "$RC" "$name: export exit status" || show "$name-export"
	run "$name-print" otf2-print "$arc/traces.otf2"
	expect_eq 0 "$RC" "$name: otf2-print exit status"
	expect_no_grep "WARNING" "$T/$name-print.out" "$name: otf2-print warnings"
	expect_eq 2 "$(count "$name-print" THREAD_FORK 0)" "$name: ThreadFork on thread 0"
	expect_eq 2 "$(count "$name-print" THREAD_JOIN 0)" "$name: ThreadJoin on thread 0"
	for l in 0 1; do
		expect_eq 2 "$(count "$name-print" THREAD_TEAM_BEGIN $l)" \
			"$name: ThreadTeamBegin on location $l"
		expect_eq 2 "$(count "$name-print" THREAD_TEAM_END $l)" \
			"$name: ThreadTeamEnd on location $l"
	done
	expect_grep "Requested Threads: 2" "$T/$name-print.out" "$name: the fork's team size"
	# each ThreadFork at the time of its parallel-begin record (the encountering thread's
	# stream: dump's ns since the stream's start pair), not at the thread's implicit task,
	# which begins later by the team's start-up; nothing moved to keep times in order
	run "$name-dump" "$PERFSCOPE" dump "$dir"
	expect_eq "$(awk '/^# / { f = $2; sub(/:$/, "", f); n = split(f, a, ".")
			m = a[n - 1] == a[n]
			for (i = 1; i <= NF; i++) if ($i == "=" && $(i + 2) == "ns,") b = $(i + 1)
			next }
		m && $4 == "omp-parallel-begin" { printf "%.0f ", b + $3 }' "$T/$name-dump.out")" \
		"$(awk '$1 == "THREAD_FORK" && $2 == 0 { printf "%s ", $3 }' "$T/$name-print.out")" \
		"$name: ThreadFork times are the parallel regions' begins"
	expect_no_grep "moved later" "$T/$name-export.err" "$name: no event moved to keep times in order"
	run "$name-rep" "$PERFSCOPE" report "$dir" --csv
	run "$name-defs" otf2-print -G "$arc/traces.otf2"
	# named after triangle with both (clang inlines it into main: "(inlined in main)")
	expect_grep "triangle@omp_tri.c:$LINE" "$T/$name-defs.out" "$name: the region of line $LINE"
	expect_grep "Name: \"[omp parallel $(grep -o "\[omp parallel [^]]*@omp_tri.c:$LINE[^]]*\]" \
		"$T/$name-rep.out" | head -1 | sed 's/^\[omp parallel //; s/\]$//')]\"" \
		"$T/$name-defs.out" "$name: the parallel region named as the call tree names it"
	expect_grep 'Role: PARALLEL, Paradigm: OPENMP' "$T/$name-defs.out" "$name: parallel role"
	for l in 0 1; do
		expect_grep "Name: \"omp thread $l (thread " "$T/$name-defs.out" \
			"$name: a location named by its OpenMP thread number $l"
	done
	expect_grep 'Type: COMM_LOCATIONS, Paradigm: "OpenMP"' "$T/$name-defs.out" \
		"$name: the OpenMP threads' group"
	if [ "$name" = clang ]; then
		for l in 0 1; do
			expect_eq 2 "$(awk -v l=$l '$1 == "ENTER" && $2 == l && /omp barrier \(implicit\)/' \
				"$T/$name-print.out" | wc -l | tr -d ' ')" \
				"$name: implicit barrier Enter on location $l"
			expect_eq 2 "$(awk -v l=$l '$1 == "LEAVE" && $2 == l && /omp barrier \(implicit\)/' \
				"$T/$name-print.out" | wc -l | tr -d ' ')" \
				"$name: implicit barrier Leave on location $l"
		done
		run "$name-omp" "$PERFSCOPE" report "$dir" --openmp --csv
		want=$(awk -F, -v at="omp_tri.c:$LINE" 'NF == 0 { exit }
			index($1, at) && $2 == 0 { print $6 }' "$T/$name-omp.out")
		got=$(awk '$2 == 0 && /omp barrier \(implicit\)/ {
				if ($1 == "ENTER") e = $3; else { print $3 - e; exit } }' \
			"$T/$name-print.out")
		expect_near "$want" "$got" 1000 "$name: thread 0's barrier wait against report --openmp"
	fi
	run "$name-back" "$PERFSCOPE" report "$arc/traces.otf2" --csv
	expect_eq 0 "$RC" "$name: report of the archive" || show "$name-back"
	calls "$T/$name-rep.out" >"$T/$name-rep.calls"
	calls "$T/$name-back.out" >"$T/$name-back.calls"
	expect_eq "$(cat "$T/$name-rep.calls")" "$(cat "$T/$name-back.calls")" \
		"$name: function call counts read back"
}

omp_tri_progs
for p in "${PROGS[@]}"; do
	IFS=: read -r cc prog <<<"$p"
	check "$cc" "$prog"
done
finish

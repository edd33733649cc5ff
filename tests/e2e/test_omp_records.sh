#!/usr/bin/env bash
# OpenMP records (src/omp-rt) from examples/omp_tri.c built with gcc (libgomp, interposed) and
# clang (libomp, OMPT), recorded by plain `record` at 1, 2 and 4 threads: the exact counts of
# each record kind, known from the program (2 regions; per thread 1 explicit barrier, 1
# critical section, LOCKS lock waits, 1 dynamic loop with its closing barrier). With libomp,
# the static loop has a WORK record too and the regions' closing barriers are waits of their
# own (none in a team of 1); a worker's leaving of the process's last region comes after the
# runtime stopped (its ITASK_END is missing). --no-openmp writes none; --functions keeps the
# program's calls exact.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

counter=$PSC_BUILD/tests/test_pass
[ -x "$counter" ] || die "$counter was not built"
ROWS=3000 LOCKS=5 DYN_ITERS=1000

# count FILE KIND: the number of records of KIND in test_pass's list FILE (0 when none)
count() {
	awk -v k="$2" '$1 == k { n = $2 } END { print n + 0 }' "$1"
}

# check NAME PROG THREADS CLANG(0/1)
check() {
	local name=$1 prog=$2 t=$3 clang=$4 dir=$T/$1.exp
	OMP_NUM_THREADS=$t record_or_die "$name" "$dir" -- "$prog" "$ROWS"
	expect_grep "threads $t rows $ROWS" "$T/$name.out" "$name: the program ran $t threads"
	"$counter" "$dir" >"$T/$name.counts" || fail "$name: the pass failed"
	local implicit=0 work=$t itask_end=$((2 * t))
	if [ "$clang" = 1 ]; then
		work=$((2 * t))
		[ "$t" -gt 1 ] && implicit=$((2 * t)) itask_end=$((t + 1))
	fi
	expect_eq 2 "$(count "$T/$name.counts" omp-parallel-begin)" "$name: parallel regions"
	expect_eq 2 "$(count "$T/$name.counts" omp-parallel-end)" "$name: parallel region ends"
	expect_eq $((2 * t)) "$(count "$T/$name.counts" omp-itask-begin)" \
		"$name: implicit tasks = regions x threads"
	expect_eq "$itask_end" "$(count "$T/$name.counts" omp-itask-end)" "$name: implicit task ends"
	# explicit barrier + critical + locks + the dynamic loop's barrier, per thread
	expect_eq $(((1 + 1 + LOCKS + 1) * t + implicit)) \
		"$(count "$T/$name.counts" omp-sync-enter)" "$name: waits"
	expect_eq "$work" "$(count "$T/$name.counts" omp-work)" "$name: WORK records"
}

progs=()
[ -x "$EX/omp_tri" ] && progs+=("gcc:$EX/omp_tri:0")
[ -x "$EX/omp_tri_clang" ] && progs+=("clang:$EX/omp_tri_clang:1")
[ ${#progs[@]} -gt 0 ] || skip "examples/omp_tri was not built (no OpenMP compiler)"

for p in "${progs[@]}"; do
	IFS=: read -r cc prog clang <<<"$p"
	for t in 1 2 4; do
		check "$cc-$t" "$prog" "$t" "$clang"
	done
	# --no-openmp: no OpenMP records
	OMP_NUM_THREADS=2 record_or_die "$cc-off" "$T/$cc-off.exp" --no-openmp -- "$prog" "$ROWS"
	if [ -d "$T/$cc-off.exp" ] && ls "$T/$cc-off.exp"/stream.* >/dev/null 2>&1; then
		"$counter" "$T/$cc-off.exp" >"$T/$cc-off.counts" || fail "$cc-off: the pass failed"
		expect_no_grep '^omp-' "$T/$cc-off.counts" "$cc --no-openmp: no OpenMP records"
	fi
	# --functions: the calls stay exact (row: ROWS calls; cell: DYN_ITERS calls)
	OMP_NUM_THREADS=4 record_or_die "$cc-fn" "$T/$cc-fn.exp" --functions -- "$prog" "$ROWS"
	"$counter" "$T/$cc-fn.exp" >"$T/$cc-fn.counts" || fail "$cc-fn: the pass failed"
	expect_eq 2 "$(count "$T/$cc-fn.counts" omp-parallel-begin)" "$cc --functions: regions"
	report_csv_or_die "$cc-fn-report" "$T/$cc-fn.exp"
	expect_eq "$ROWS" "$(csv_get "$T/$cc-fn-report.out" calls name=row)" \
		"$cc --functions: calls of row"
	expect_eq "$DYN_ITERS" "$(csv_get "$T/$cc-fn-report.out" calls name=cell)" \
		"$cc --functions: calls of cell"
done
finish

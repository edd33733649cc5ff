#!/usr/bin/env bash
# An OpenMP region in code the compiler inlined into another function is named after the
# function of its source, with the line of its construct and the function it was inlined in
# ("fill@omp_inline.c:9 (inlined in main)"): it was named after the function whose code holds
# it ("main@omp_inline.c:9", fill's line under main's name). A region of a function not inlined
# keeps its plain name. Built here with gcc (libgomp) and, when there, clang (libomp, OMPT).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/omp_inline.c" <<'SRC'
#include <stdio.h>
#include <stdlib.h>

/* forced inline: its region's call site is in main's code */
static inline __attribute__((always_inline)) double fill(double *a, int n)
{
	double s = 0;

#pragma omp parallel for reduction(+ : s) /* INLINED */
	for (int i = 0; i < n; i++) {
		a[i] = i * 0.5;
		s += a[i];
	}
	return s;
}

static __attribute__((noinline)) double scale(double *a, int n)
{
	double s = 0;

#pragma omp parallel for reduction(+ : s) /* OWN */
	for (int i = 0; i < n; i++) {
		a[i] *= 2;
		s += a[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	double *a = malloc(sizeof(*a) * (size_t)n);
	double s = fill(a, n);

	printf("sum %.1f %.1f\n", s, scale(a, n));
	free(a);
	return 0;
}
SRC
inl=$(grep -n 'INLINED' "$T/omp_inline.c" | cut -d: -f1)
own=$(grep -n '/\* OWN' "$T/omp_inline.c" | cut -d: -f1)

built=0
for cc in gcc clang; do
	command -v "$cc" >/dev/null 2>&1 || continue
	"$cc" -O2 -g -fopenmp "$T/omp_inline.c" -o "$T/inl-$cc" 2>"$T/cc-$cc.err" || continue
	built=$((built + 1))
	OMP_NUM_THREADS=2 record_or_die "rec-$cc" "$T/$cc.exp" -- "$T/inl-$cc" 100000
	expect_grep "sum 2499975000.0 4999950000.0" "$T/rec-$cc.out" "$cc: the program's own output"
	run csv-$cc "$PERFSCOPE" report "$T/$cc.exp" --openmp --csv
	expect_eq 0 "$RC" "$cc: report --openmp --csv"
	# clang's DWARF names fill by its prototype, gcc's by its name
	expect_grep "@omp_inline.c:$inl (inlined in main)" "$T/csv-$cc.out" \
		"$cc: the inlined region is named after its source and line"
	# the CSV's first table: a row per region and thread, threads 0 and 1 here
	awk 'NF == 0 { exit } { print }' "$T/csv-$cc.out" >"$T/rows-$cc.csv"
	expect_eq 2 "$(grep -c "^\"\\{0,1\\}fill[(@].*omp_inline.c:$inl (inlined in main)\"\\{0,1\\},[01]," \
		"$T/rows-$cc.csv")" "$cc: fill's region, one row per thread"
	expect_no_grep "main@omp_inline.c:$inl" "$T/csv-$cc.out" "$cc: not under main's name"
	expect_eq 2 "$(grep -c "^\"\\{0,1\\}scale[(@].*omp_inline.c:$own\"\\{0,1\\},[01]," "$T/rows-$cc.csv")" \
		"$cc: the region of a function not inlined keeps its plain name"
	expect_no_grep "omp_inline.c:$own (inlined" "$T/csv-$cc.out" "$cc: no inlining where there is none"
	run json-$cc "$PERFSCOPE" report "$T/$cc.exp" --openmp --json
	expect_grep "(inlined in main)" "$T/json-$cc.out" "$cc: report --openmp --json names it so"
done
[ "$built" -gt 0 ] || skip "no compiler here builds OpenMP (gcc or clang with -fopenmp)"
finish

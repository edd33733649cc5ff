#!/usr/bin/env bash
# libomp (clang, OMPT): a worker's leaving of a region's closing barrier is dated back to the
# last arrival there; when its arrival's record began a new chunk (timed now, after the arrival
# it noted), that date went behind the chunk's clock record and the stream was refused, "time
# goes backwards", by every command (LULESH at 2 threads, every run). Many short regions
# recorded with a small --buffer-size cross many chunk boundaries: the report must read them,
# with every region's calls.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cc=$(command -v clang || command -v clang-14 || true)
[ -n "$cc" ] || skip "no clang"
"$cc" -O1 -g -fopenmp "$(dirname "$0")/omp-regions-prog.c" -o "$T/regions" 2>"$T/cc.err" ||
	skip "clang -fopenmp cannot build here (no libomp?)"

N=20000
for i in 1 2 3; do
	d=$T/r$i.exp
	run rec env OMP_NUM_THREADS=2 "$PERFSCOPE" record --buffer-size 64k -o "$d" -- "$T/regions" $N
	expect_eq 0 "$RC" "run $i: record"
	expect_grep "regions $N sum" "$T/rec.out" "run $i: the program's output"
	run rep "$PERFSCOPE" report "$d" --openmp --format csv
	expect_eq 0 "$RC" "run $i: report --openmp reads the streams"
	expect_eq "$N $N" "$(awk -F, 'NF == 13 && $1 ~ /omp-regions-prog.c/ { printf "%s%s", s, $3; s = " " }' "$T/rep.out")" \
		"run $i: each thread's calls of the region"
done
finish

#!/usr/bin/env bash
# Threads of an OpenMP team named by their OpenMP thread number in the region report (issue 21:
# "threads named ... in every view"): a program whose thread N runs the region "work" N + 1
# times, at 2 threads. `report --by thread` labels each row "omp thread N · TID" in text, and
# gives the number in an omp_thread column in CSV, long CSV and JSON, the calls matching the
# number (1 for thread 0, 2 for thread 1); a report merged over threads keeps its columns. Built
# with gcc (libgomp) and, outside sanitizer builds, clang (libomp, OMPT).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/omp_regions.c" <<'SRC'
#include <perfscope.h>
#include <omp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
#pragma omp parallel num_threads(2)
	{
		int me = omp_get_thread_num();

		for (int k = 0; k <= me; k++) {
			PSC_REGION_BEGIN("work");
			volatile double s = 0;
			for (int i = 0; i < 100000; i++)
				s += i;
			PSC_REGION_END("work");
		}
		printf("thread %d tid %ld\n", me, (long)syscall(SYS_gettid));
	}
	return 0;
}
SRC

compilers=(gcc)
# clang's program cannot share a process with the sanitized runtime built by gcc
[ "${PSC_SANITIZE:-OFF}" = ON ] || compilers+=(clang)
built=0
for cc in "${compilers[@]}"; do
	command -v "$cc" >/dev/null 2>&1 || continue
	san=()
	[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
	"$cc" -O1 -fopenmp -DPERFSCOPE -I"$PSC_SOURCE/include" "$T/omp_regions.c" -o "$T/prog-$cc" \
		-L"$PSC_BUILD" -lperfscope -Wl,-rpath,"$PSC_BUILD" -pthread "${san[@]}" \
		>"$T/cc-$cc.log" 2>&1 || continue
	built=$((built + 1))
	record_or_die "rec-$cc" "$T/$cc.exp" -- "$T/prog-$cc"
	tid0=$(awk '$1 == "thread" && $2 == 0 { print $4 }' "$T/rec-$cc.out")
	tid1=$(awk '$1 == "thread" && $2 == 1 { print $4 }' "$T/rec-$cc.out")
	[ -n "$tid0" ] && [ -n "$tid1" ] || die "$cc: the program did not print its threads"

	run "text-$cc" "$PERFSCOPE" report "$T/$cc.exp" --by thread
	expect_eq 0 "$RC" "$cc: report --by thread"
	expect_grep "work    omp thread 0 · $tid0      1 " "$T/text-$cc.out" \
		"$cc: thread 0's row labelled with its number and id, 1 call"
	expect_grep "work    omp thread 1 · $tid1      2 " "$T/text-$cc.out" \
		"$cc: thread 1's row labelled with its number and id, 2 calls"

	run "csv-$cc" "$PERFSCOPE" report "$T/$cc.exp" --by thread --csv
	expect_eq "name,thread,omp_thread,calls" "$(head -n 1 "$T/csv-$cc.out" | cut -d, -f1-4)" \
		"$cc: CSV header with omp_thread"
	expect_eq 1 "$(grep -c "^work,$tid0,0,1," "$T/csv-$cc.out")" "$cc: CSV row of thread 0"
	expect_eq 1 "$(grep -c "^work,$tid1,1,2," "$T/csv-$cc.out")" "$cc: CSV row of thread 1"

	run "long-$cc" "$PERFSCOPE" report "$T/$cc.exp" --by thread --format long
	expect_eq 1 "$(grep -cx "work,$tid1,1,calls,2" "$T/long-$cc.out")" \
		"$cc: long CSV keyed by omp_thread too"

	run "json-$cc" "$PERFSCOPE" report "$T/$cc.exp" --by thread --json
	expect_eq "$tid0:0:1 $tid1:1:2" "$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["regions"]
print(" ".join("%s:%s:%s" % (r["thread"], r["omp_thread"], r["calls"])
               for r in sorted(rows, key=lambda r: r["omp_thread"])))' "$T/json-$cc.out")" \
		"$cc: JSON rows with thread, omp_thread and calls"

	run "merged-$cc" "$PERFSCOPE" report "$T/$cc.exp" --csv
	expect_eq "name,thread,calls,incl_ns" "$(head -n 1 "$T/merged-$cc.out" | cut -d, -f1-4)" \
		"$cc: merged over threads, no omp_thread column"
	expect_eq 1 "$(grep -c "^work,all,3," "$T/merged-$cc.out")" "$cc: merged row"
done
[ "$built" -gt 0 ] || skip "no compiler here builds OpenMP (gcc or clang with -fopenmp)"
finish

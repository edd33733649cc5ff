#!/usr/bin/env bash
# OpenMP explicit tasks: examples/omp_tasks creates N tasks from one thread (`single`) and
# waits for them, then N more from the master that the team runs in the region's closing
# barrier, and counts them itself ("tasks 2N ran 2N threads T"). Recorded with gcc (libgomp,
# GOMP_task interposed) and clang (libomp, OMPT) at 1 and 2 threads: exactly 2N task create,
# begin and end records, and `report --openmp` counts 2N tasks created and 2N run, summed over
# the regions' threads. (With libomp, tasks run in a closing barrier made the stream's times
# go back, and the experiment unreadable.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

counter=$PSC_BUILD/tests/test_pass
[ -x "$counter" ] || die "$counter was not built"
N=150

# count FILE KIND: the number of records of KIND in test_pass's list FILE (0 when none)
count() {
	awk -v k="$2" '$1 == k { n = $2 } END { print n + 0 }' "$1"
}

# check NAME PROG THREADS
check() {
	local name=$1 prog=$2 t=$3 dir=$T/$1.exp
	OMP_NUM_THREADS=$t record_or_die "$name" "$dir" -- "$prog" "$N"
	expect_grep "tasks $((2 * N)) ran $((2 * N)) threads $t" "$T/$name.out" \
		"$name: the program ran every task"
	"$counter" "$dir" >"$T/$name.counts" || fail "$name: the pass failed"
	for k in create begin end; do
		expect_eq $((2 * N)) "$(count "$T/$name.counts" omp-task-$k)" "$name: task $k records"
	done
	run "$name-omp" "$PERFSCOPE" report "$dir" --openmp --csv
	[ "$RC" -eq 0 ] || { show "$name-omp"; die "$name: report --openmp exited $RC"; }
	expect_eq "$((2 * N)) $((2 * N))" "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		NF == 0 { exit } { c += $col["tasks_created"]; r += $col["tasks_completed"] }
		END { print c + 0, r + 0 }' "$T/$name-omp.out")" "$name: tasks created and run"
}

# A task with `detach`: libgomp writes the event's handle into the task's data, so the runtime
# passes it through unrecorded; the program must run as it does alone (it crashed under record
# when the wrapper put its own header where libgomp writes).
if command -v gcc >/dev/null 2>&1; then
	cat >"$T/detach.c" <<'C'
#include <omp.h>
#include <stdio.h>
int main(void)
{
	int x = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
		omp_event_handle_t ev;
#pragma omp task detach(ev) shared(x)
		{
			x++;
			omp_fulfill_event(ev);
		}
#pragma omp taskwait
	}
	printf("x=%d\n", x);
	return 0;
}
C
	gcc -O1 -fopenmp -fno-sanitize=all "$T/detach.c" -o "$T/detach" >"$T/detach.cc.log" 2>&1 ||
		die "cannot build the detach program: $(cat "$T/detach.cc.log")"
	record_or_die detach "$T/detach.exp" -- "$T/detach"
	expect_grep "x=1" "$T/detach.out" "a detached task runs under record"
fi

progs=()
[ -x "$EX/omp_tasks" ] && progs+=("gcc:$EX/omp_tasks")
[ -x "$EX/omp_tasks_clang" ] && progs+=("clang:$EX/omp_tasks_clang")
[ ${#progs[@]} -gt 0 ] || skip "examples/omp_tasks was not built (no OpenMP compiler)"
for p in "${progs[@]}"; do
	IFS=: read -r cc prog <<<"$p"
	for t in 1 2 4; do
		check "$cc-$t" "$prog" "$t"
	done
done
finish

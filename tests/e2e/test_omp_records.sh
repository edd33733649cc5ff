#!/usr/bin/env bash
# OpenMP records (src/omp-rt) from examples/omp_tri.c built with gcc (libgomp, interposed) and
# clang (libomp, OMPT), recorded by plain `record` at 1, 2 and 4 threads: the exact counts of
# each record kind, known from the program (2 regions; per thread 1 explicit barrier, 1
# critical section, LOCKS lock waits, 1 dynamic loop with its closing barrier). With libomp,
# the static loop has a WORK record too and the regions' closing barriers are waits of their
# own (none in a team of 1); a worker's leaving of the process's last region comes after the
# runtime stopped (its ITASK_END is missing). --no-openmp writes none; --functions keeps the
# program's calls exact. The waits by kind and the dynamic loop's chunks and iterations are
# read from the streams themselves (written uncompressed).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

counter=$PSC_BUILD/tests/test_pass
[ -x "$counter" ] || die "$counter was not built"
ROWS=3000 LOCKS=5 DYN_ITERS=1000

# omp_kinds DIR: from the uncompressed streams of DIR (PERFSCOPE_COMPRESS=never), lines
# "sync-K N" (wait begin records of enum psc_omp_sync K), "work-K N", "chunks N" and
# "iterations N" (sums over the WORK records): what test_pass's names do not tell apart
omp_kinds() {
	python3 - "$1" <<'PY'
import glob, struct, sys
n = {}
def add(k, v=1):
    n[k] = n.get(k, 0) + v
for f in glob.glob(sys.argv[1] + "/stream.*"):
    b = open(f, "rb").read()
    pos = 64
    while pos + 16 <= len(b):
        magic, size, _ = struct.unpack_from("<IIQ", b, pos)
        pos += 16
        if magic != 0x4B435350:
            sys.exit("%s: a compressed or unknown chunk at byte %d" % (f, pos - 16))
        end = pos + size
        while pos < end:
            w0, w1 = struct.unpack_from("<QQ", b, pos)
            if w0 & 3 != 2:
                pos += 16
                continue
            typ, nw, arg = w1 & 0xFFFF, (w1 >> 16) & 0xFFFF, w1 >> 32
            if typ == 25:
                add("sync-%d" % arg)
            elif typ == 27:
                p = struct.unpack_from("<4Q", b, pos + 16)
                add("work-%d" % arg)
                add("chunks", p[2])
                add("iterations", p[3])
            pos += 8 * nw
for k in sorted(n):
    print(k, n[k])
PY
}

# count FILE KIND: the number of records of KIND in test_pass's list FILE (0 when none)
count() {
	awk -v k="$2" '$1 == k { n = $2 } END { print n + 0 }' "$1"
}

# check NAME PROG THREADS CLANG(0/1)
check() {
	local name=$1 prog=$2 t=$3 clang=$4 dir=$T/$1.exp
	PERFSCOPE_COMPRESS=never OMP_NUM_THREADS=$t record_or_die "$name" "$dir" -- "$prog" "$ROWS"
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
	# dump names the fields: each implicit task with its thread number and the team's size
	run "$name-dump" "$PERFSCOPE" dump "$dir"
	expect_eq $((2 * t)) "$(grep -cE "omp-itask-begin parallel=[1-9][0-9]* thread=[0-9]+ team=$t\$" \
		"$T/$name-dump.out")" "$name: dump's implicit task lines"
	omp_kinds "$dir" >"$T/$name.kinds" || fail "$name: cannot decode the streams"
	expect_eq "$t" "$(count "$T/$name.kinds" sync-2)" "$name: explicit barriers"
	expect_eq "$t" "$(count "$T/$name.kinds" sync-4)" "$name: critical section waits"
	expect_eq $((LOCKS * t)) "$(count "$T/$name.kinds" sync-5)" "$name: lock waits"
	expect_eq "$t" "$(count "$T/$name.kinds" sync-3)" "$name: the dynamic loop's barriers"
	expect_eq "$implicit" "$(count "$T/$name.kinds" sync-1)" "$name: regions' closing barriers"
	if [ "$clang" = 0 ]; then
		# the dynamic loop: DYN_ITERS iterations in chunks of 10 over the team
		expect_eq "$t" "$(count "$T/$name.kinds" work-2)" "$name: dynamic loop WORK records"
		expect_eq $((DYN_ITERS / 10)) "$(count "$T/$name.kinds" chunks)" "$name: chunks"
		expect_eq "$DYN_ITERS" "$(count "$T/$name.kinds" iterations)" "$name: iterations"
	else
		expect_eq $((2 * t)) "$(count "$T/$name.kinds" work-7)" "$name: loops (schedule unknown)"
		# libomp 14 tells neither a thread's chunks nor its iterations: the report says
		# they are not counted (empty in CSV, "-" in text), not 0
		run "$name-omp" "$PERFSCOPE" report "$dir" --openmp --csv
		expect_eq $((2 * t)) "$(awk -F, 'NF == 0 { exit } NR > 1 && $10 == "" && $11 == ""' \
			"$T/$name-omp.out" | wc -l | tr -d ' ')" \
			"$name: the loops' rows have no chunks or iterations"
		run "$name-omptext" "$PERFSCOPE" report "$dir" --openmp
		expect_grep "  -  " "$T/$name-omptext.out" "$name: text shows them as -"
	fi
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
	# --no-openmp: the runtime, preloaded for --functions, writes no OpenMP records
	OMP_NUM_THREADS=2 record_or_die "$cc-off" "$T/$cc-off.exp" --no-openmp --functions -- \
		"$prog" "$ROWS"
	"$counter" "$T/$cc-off.exp" >"$T/$cc-off.counts" || fail "$cc-off: the pass failed"
	expect_grep 'func-enter ' "$T/$cc-off.counts" "$cc --no-openmp --functions: calls recorded"
	expect_no_grep 'omp-' "$T/$cc-off.counts" "$cc --no-openmp: no OpenMP records"
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

# linked with -lperfscope and run with PERFSCOPE_OUT alone: a lone `omp parallel` leaves the
# program no libgomp of its own (the linker took every symbol from libperfscope.so); it runs
# without PERFSCOPE_OUT and records with it
if command -v gcc >/dev/null 2>&1; then
	cat >"$T/lone.c" <<'C'
#include <stdio.h>
int main(void)
{
	int n = 0;
#pragma omp parallel reduction(+ : n)
	n++;
	printf("threads %d\n", n);
	return 0;
}
C
	san=()
	# a sanitized libperfscope needs the sanitizer runtimes first in the program (build_c)
	[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
	gcc -O1 -fopenmp "$T/lone.c" -o "$T/lone" -L"$PSC_BUILD" -lperfscope \
		-Wl,-rpath,"$PSC_BUILD" "${san[@]}" >"$T/lone.cc.log" 2>&1 ||
		die "cannot build lone.c: $(cat "$T/lone.cc.log")"
	OMP_NUM_THREADS=3 run lone-plain "$T/lone"
	expect_eq 0 "$RC" "linked, not recording: exit status"
	expect_grep "threads 3" "$T/lone-plain.out" "linked, not recording: the region ran"
	PERFSCOPE_OUT=$T/lone.exp OMP_NUM_THREADS=3 run lone-rec "$T/lone"
	expect_eq 0 "$RC" "linked, PERFSCOPE_OUT: exit status"
	"$counter" "$T/lone.exp" >"$T/lone.counts" || fail "lone: the pass failed"
	expect_eq 1 "$(count "$T/lone.counts" omp-parallel-begin)" "linked: the region recorded"
	expect_eq 3 "$(count "$T/lone.counts" omp-itask-end)" "linked: its implicit tasks"
fi
finish

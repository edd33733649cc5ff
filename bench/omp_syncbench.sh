#!/usr/bin/env bash
# omp_syncbench.sh - what recording OpenMP costs: bench/omp_syncbench.c (EPCC syncbench style:
# the overhead of a parallel region and of a barrier) built with gcc (libgomp, interposed) and
# clang (libomp, OMPT), run plain and under `perfscope record`, interleaved round by round
# (the order alternates), medians over the rounds.
#
# usage: bench/omp_syncbench.sh [--no-build]
#   BUILD_DIR  build directory (default: <repo>/build-bench, configured as Release)
#   THREADS    OMP_NUM_THREADS (default 2)
#   ROUNDS     rounds (default 7)
#   DELAYS     the work per thread per construct, in us (default "0.1 100")
#   OUT_BASE   where experiments go (default /dev/shm when writable, else $TMPDIR or /tmp)
#
# Prints per compiler, delay and mode the medians of parallel_ns, barrier_ns (overheads per
# construct) and region_ns (a region's whole time), then the added ns per construct and per
# record on the critical path: a region costs its thread 0 four records with libgomp (parallel
# begin and end, its implicit task's begin and end) and six with libomp (also its closing
# barrier's wait begin and end); a barrier two (wait begin and end) on every thread, and so
# does a lock (its wait begin and end; the unset is not recorded).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
threads=${THREADS:-2}
rounds=${ROUNDS:-7}
delays=${DELAYS:-"0.1 100"}
base=${OUT_BASE:-}
if [[ -z $base ]]; then
	if [[ -d /dev/shm && -w /dev/shm ]]; then base=/dev/shm; else base=${TMPDIR:-/tmp}; fi
fi
if [[ ${1:-} != --no-build ]]; then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target perfscope_cli perfscope omp_syncbench \
		omp_syncbench_clang >/dev/null
fi
psc=$build/perfscope
out=$(mktemp -d "$base/omp_syncbench.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# inner count: about 0.2 s of constructs per test
inner_for() { awk -v d="$1" 'BEGIN { n = int(200000 / (d + 2)); print (n > 20000 ? 20000 : n < 50 ? 50 : n) }'; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-6s %8s %-9s %12s %12s %12s %12s\n' compiler delay_us mode parallel_ns barrier_ns lock_ns \
	region_ns
for cc in gcc clang; do
	prog=$build/bench/omp_syncbench
	[[ $cc == clang ]] && prog=$build/bench/omp_syncbench_clang
	[[ -x $prog ]] || { echo "$prog not built: $cc skipped"; continue; }
	for d in $delays; do
		inner=$(inner_for "$d")
		for r in $(seq "$rounds"); do
			modes="plain perfscope"
			((r % 2)) || modes="perfscope plain"
			for m in $modes; do
				if [[ $m == plain ]]; then
					OMP_NUM_THREADS=$threads "$prog" "$d" "$inner" 5 \
						>"$out/$cc.$d.$m.$r"
				else
					OMP_NUM_THREADS=$threads "$psc" record -o "$out/exp" --force \
						-- "$prog" "$d" "$inner" 5 >"$out/$cc.$d.$m.$r" 2>/dev/null
				fi
			done
		done
		for m in plain perfscope; do
			for k in parallel_ns barrier_ns lock_ns region_ns; do
				cat "$out/$cc.$d.$m".* | awk -v k="$k" '$1 == k { print $2 }' | median \
					>"$out/$cc.$d.$m.$k"
			done
			printf '%-6s %8s %-9s %12s %12s %12s %12s\n' "$cc" "$d" "$m" \
				"$(cat "$out/$cc.$d.$m.parallel_ns")" "$(cat "$out/$cc.$d.$m.barrier_ns")" \
				"$(cat "$out/$cc.$d.$m.lock_ns")" "$(cat "$out/$cc.$d.$m.region_ns")"
		done
		recs=4
		[[ $cc == clang ]] && recs=6
		awk -v p0="$(cat "$out/$cc.$d.plain.parallel_ns")" \
			-v p1="$(cat "$out/$cc.$d.perfscope.parallel_ns")" \
			-v b0="$(cat "$out/$cc.$d.plain.barrier_ns")" \
			-v b1="$(cat "$out/$cc.$d.perfscope.barrier_ns")" \
			-v r0="$(cat "$out/$cc.$d.plain.region_ns")" \
			-v l0="$(cat "$out/$cc.$d.plain.lock_ns")" \
			-v l1="$(cat "$out/$cc.$d.perfscope.lock_ns")" \
			-v r1="$(cat "$out/$cc.$d.perfscope.region_ns")" -v recs="$recs" \
			-v cc="$cc" -v d="$d" 'BEGIN {
			printf "%-6s %8s added: region %d ns (%.1f per record), barrier %d ns (%.1f per record), lock %d ns (%.1f per record), region time x %.3f\n",
				cc, d, p1 - p0, (p1 - p0) / recs, b1 - b0, (b1 - b0) / 2, l1 - l0, (l1 - l0) / 2, r0 ? r1 / r0 : 0 }'
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

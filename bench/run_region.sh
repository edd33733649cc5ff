#!/usr/bin/env bash
# run_region.sh - build bench_region and run it in every configuration, then print a table.
#
# usage: bench/run_region.sh [--no-build]
#   BUILD_DIR  build directory (default: <repo>/build-bench, configured as Release)
#   ITERS      pairs per run without events (default 10000000)
#   CITERS     pairs per run with events (default 200000)
#   REPS       runs of each measurement, interleaved (default 9)
#   CPU        CPU to pin to (default: the last online CPU; -1: no pinning)
#   EVENTS     events of the counter configurations (default task-clock,page-faults,context-switches)
#   OUT_BASE   where the temporary experiment directories go (default: /dev/shm when it is a
#              writable directory, else $TMPDIR or /tmp; on a disk file system the flushes
#              inside the timed runs add file-system noise: see README.md)
#
# Every configuration is one process (the runtime reads its environment once), recording into
# its own directory under a temporary directory that is removed at the end. Detailed output
# of each process goes to stderr, the table to stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
iters=${ITERS:-10000000}
citers=${CITERS:-200000}
reps=${REPS:-9}
cpu=${CPU:-$(($(nproc) - 1))}
events=${EVENTS:-task-clock,page-faults,context-switches}

if [[ ${1:-} != --no-build ]]; then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target bench_region >/dev/null
fi
bin=$build/bench/bench_region
[[ -x $bin ]] || { echo "run_region.sh: $bin not built" >&2; exit 1; }

if [[ -z ${OUT_BASE:-} ]]; then
	OUT_BASE=${TMPDIR:-/tmp}
	[[ -d /dev/shm && -w /dev/shm ]] && OUT_BASE=/dev/shm
fi
tmp=$(mktemp -d "$OUT_BASE/psc-bench-region.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

results=()
# run NAME BUFFER EVENTS ITERS [OUT]: one process; appends its RESULT line to results
run() {
	local name=$1 buffer=$2 ev=$3 n=$4 out=${5-$tmp/$1} line
	local -a envs=(env -u PERFSCOPE_OUT -u PERFSCOPE_EVENTS -u PERFSCOPE_BUFFER_SIZE)

	[[ -n $out ]] && envs+=(PERFSCOPE_OUT="$out")
	[[ -n $ev ]] && envs+=(PERFSCOPE_EVENTS="$ev")
	[[ $buffer != default ]] && envs+=(PERFSCOPE_BUFFER_SIZE="$buffer")
	echo "== $name: ${envs[*]:7} $bin --iters $n --reps $reps --cpu $cpu" >&2
	"${envs[@]}" "$bin" --iters "$n" --reps "$reps" --cpu "$cpu" >"$tmp/$name.txt"
	cat "$tmp/$name.txt" >&2
	line=$(grep '^RESULT ' "$tmp/$name.txt")
	results+=("config=$name $line")
	rm -rf "$out"
}

run regions-default default "" "$iters"
run regions-64M 64M "" "$iters"
run regions-512M 512M "" "$iters" # a whole run fits in the buffer: no flush while timed
run counters-default default "$events" "$citers"
run counters-64M 64M "$events" "$citers"
run off default "" "$iters" ""

field() { # field KEY LINE
	local kv
	for kv in $2; do
		[[ ${kv%%=*} == "$1" ]] && { echo "${kv#*=}"; return; }
	done
	echo -
}

echo
echo "bench_region: experiments in $OUT_BASE"
echo "bench_region: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, pinned to CPU $cpu, $reps runs each, medians"
printf '%-17s %-8s %-9s %10s %11s %13s %7s %8s %7s %4s\n' config buffer baseline \
	"base ns" "region ns" "region_id ns" "B/pair" ratio target met
for line in "${results[@]}"; do
	mode=$(field mode "$line")
	if [[ $mode == counters ]]; then
		base=read2 bns=$(field read2_ns "$line")
	else
		base=ts2 bns=$(field ts2_ns "$line")
	fi
	printf '%-17s %-8s %-9s %10s %11s %13s %7s %8s %7s %4s\n' "$(field config "$line")" \
		"$(field buffer "$line")" "$base" "$bns" "$(field region_ns "$line")" \
		"$(field region_id_ns "$line")" "$(field bytes_per_pair "$line")" \
		"$(field ratio "$line")" "<=$(field target "$line")" "$(field met "$line")"
done

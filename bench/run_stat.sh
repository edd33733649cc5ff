#!/usr/bin/env bash
# run_stat.sh - wall time of `perfscope stat` against `perf stat` and the plain program.
#
# usage: bench/run_stat.sh [--no-build]
#   BUILD_DIR  build directory (default: <repo>/build-bench, configured as Release)
#   RUNS       runs of each command, interleaved (default 7, at least 5)
#   SPIN       seconds of examples/spin (default 2.0)
#   EVENTS     events for both tools (default task-clock,page-faults,context-switches,cpu-migrations)
#
# Round i runs the three commands once each, the order rotated from round to round, every
# command's output going to /dev/null. Each run is timed by hyperfine (-N, one run) when it
# is installed, else by date +%s%N around the command. Prints every run, then the medians and
# the ratios perfscope/perf (target <= 1.03) and perfscope/plain.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
runs=${RUNS:-7}
spin_s=${SPIN:-2.0}
events=${EVENTS:-task-clock,page-faults,context-switches,cpu-migrations}
target=1.03

((runs >= 5)) || { echo "run_stat.sh: RUNS must be at least 5" >&2; exit 2; }
if [[ ${1:-} != --no-build ]]; then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target spin perfscope_cli >/dev/null
fi
spin=$build/examples/spin
psc=$build/perfscope
perf=$(command -v perf) || { echo "run_stat.sh: perf not found" >&2; exit 1; }
for f in "$spin" "$psc"; do
	[[ -x $f ]] || { echo "run_stat.sh: $f not built" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/psc-bench-stat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

names=(plain perf perfscope)
cmds=("$spin $spin_s"
	"$perf stat -e $events -- $spin $spin_s"
	"$psc stat -e $events -- $spin $spin_s")

if command -v hyperfine >/dev/null && { command -v jq >/dev/null || command -v python3 >/dev/null; }; then
	timer="hyperfine $(hyperfine --version | cut -d' ' -f2) (-N --runs 1)"
	# time_one CMD: wall seconds of one run
	time_one() {
		hyperfine -N --runs 1 --style none --output null --export-json "$tmp/h.json" "$1" \
			>/dev/null 2>&1
		if command -v jq >/dev/null; then
			jq '.results[0].times[0]' "$tmp/h.json"
		else
			python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["times"][0])' "$tmp/h.json"
		fi
	}
else
	timer="date +%s%N around the command (hyperfine not installed)"
	time_one() {
		local t0 t1
		t0=$(date +%s%N)
		# shellcheck disable=SC2086 # the command is a word list without quoting
		$1 >/dev/null 2>&1
		t1=$(date +%s%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.9f\n", (b - a) / 1e9 }'
	}
fi

# sanity: every command works
for i in 0 1 2; do
	# shellcheck disable=SC2086
	${cmds[$i]} >/dev/null 2>&1 || { echo "run_stat.sh: failed: ${cmds[$i]}" >&2; exit 1; }
done

echo "timer: $timer; $runs rounds, order rotated"
for i in 0 1 2; do
	echo "  ${names[$i]}: ${cmds[$i]}"
	: >"$tmp/${names[$i]}"
done
for ((r = 0; r < runs; r++)); do
	line="round $((r + 1)):"
	for k in 0 1 2; do
		i=$(((r + k) % 3))
		t=$(time_one "${cmds[$i]}")
		echo "$t" >>"$tmp/${names[$i]}"
		line+=$(printf ' %s %.4f s' "${names[$i]}" "$t")
	done
	echo "$line"
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m_plain=$(median "$tmp/plain")
m_perf=$(median "$tmp/perf")
m_psc=$(median "$tmp/perfscope")

echo
printf '%-10s %12s %12s %12s\n' command "median s" "min s" "max s"
for n in "${names[@]}"; do
	printf '%-10s %12.4f %12.4f %12.4f\n' "$n" "$(median "$tmp/$n")" \
		"$(sort -g "$tmp/$n" | head -1)" "$(sort -g "$tmp/$n" | tail -1)"
done
awk -v a="$m_psc" -v b="$m_perf" -v c="$m_plain" -v t="$target" 'BEGIN {
	r = a / b
	printf "ratio perfscope/perf  = %.4f (target <= %.2f: %s)\n", r, t, r <= t ? "met" : "MISSED"
	printf "ratio perfscope/plain = %.4f\n", a / c
	printf "ratio perf/plain      = %.4f\n", b / c
	printf "RESULT plain_s=%.4f perf_s=%.4f perfscope_s=%.4f ratio_perf=%.4f ratio_plain=%.4f target=%.2f met=%s\n",
		c, b, a, r, a / c, t, r <= t ? "yes" : "no"
}'

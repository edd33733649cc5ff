#!/usr/bin/env bash
# run_threads.sh - what a thread's start and end cost under function tracing, and the memory
# of a program that creates many short threads: perfscope against the program alone and
# uftrace.
#
# usage: bench/run_threads.sh [--no-build]
#   BUILD_DIR  build directory (default: <repo>/build-bench, configured as Release)
#   REPS       runs of each command, interleaved (default 5, at least 5)
#   THREADS    threads the program creates (default 10000)
#   ALIVE      of which alive at once (default 4)
#   OUT_BASE   where traces go (default: /dev/shm when writable, else $TMPDIR or /tmp)
#
# The program (tests/e2e/short-threads-prog.c) starts THREADS threads, ALIVE at a time, each
# calling one traced function. The commands, in interleaved rounds (the order rotated from
# round to round), each timed by date +%s%N around /usr/bin/time (peak RSS):
#   plain      the program built without -finstrument-functions
#   stubs      built with it, glibc's empty hooks
#   perfscope  perfscope record --functions
#   uftrace    uftrace record (when installed)
# then a table of medians: s, peak RSS MiB, and us per thread = (t - t_stubs) / THREADS, and
# each run's checks (the program's output; perfscope's count of the traced function and of
# its buffers, which must stay at most ALIVE + 1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
reps=${REPS:-5}
threads=${THREADS:-10000}
alive=${ALIVE:-4}

((reps >= 5)) || { echo "run_threads.sh: REPS must be at least 5" >&2; exit 2; }
if [[ ${1:-} != --no-build ]]; then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target perfscope perfscope_cli >/dev/null
fi
psc=$build/perfscope
[[ -x $psc ]] || { echo "run_threads.sh: $psc not built" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "run_threads.sh: GNU time (/usr/bin/time) is needed for peak RSS" >&2; exit 1; }
uftrace=$(command -v uftrace || true)

if [[ -z ${OUT_BASE:-} ]]; then
	OUT_BASE=${TMPDIR:-/tmp}
	[[ -d /dev/shm && -w /dev/shm ]] && OUT_BASE=/dev/shm
fi
tmp=$(mktemp -d "$OUT_BASE/psc-bench-threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset PERFSCOPE_OUT PERFSCOPE_EVENTS PERFSCOPE_BUFFER_SIZE
export LC_ALL=C

src=$repo/tests/e2e/short-threads-prog.c
cc -O2 -g "$src" -o "$tmp/plain" -pthread
cc -O2 -g -finstrument-functions "$src" -o "$tmp/traced" -pthread

declare -A cmd
cmd[plain]="$tmp/plain $threads $alive"
cmd[stubs]="$tmp/traced $threads $alive"
cmd[perfscope]="$psc record --functions -o {OUT} -- $tmp/traced $threads $alive"
names=(plain stubs perfscope)
if [[ -n $uftrace ]]; then
	cmd[uftrace]="$uftrace record --no-libcall --no-sched -d {OUT} $tmp/traced $threads $alive"
	names+=(uftrace)
fi

# run_once NAME: one timed run; appends wall s and peak KiB to $tmp/NAME.t and $tmp/NAME.rss
run_once() {
	local name=$1 c t0 t1
	c=${cmd[$name]//\{OUT\}/$tmp/$name.trace}
	rm -rf "$tmp/$name.trace"
	t0=$(date +%s%N)
	# shellcheck disable=SC2086 # the command is a word list without quoting
	/usr/bin/time -f '%M' -o "$tmp/$name.rss1" $c >"$tmp/$name.out" 2>"$tmp/$name.err"
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000))" >>"$tmp/$name.t"
	cat "$tmp/$name.rss1" >>"$tmp/$name.rss"
}

# the checks, once, untimed
for n in "${names[@]}"; do
	run_once "$n"
	grep -q "threads $threads alive $alive" "$tmp/$n.out" ||
		{ echo "run_threads.sh: $n: unexpected output: $(cat "$tmp/$n.out" "$tmp/$n.err")" >&2; exit 1; }
	rm -f "$tmp/$n.t" "$tmp/$n.rss"
done
calls=$("$psc" report "$tmp/perfscope.trace" --csv | awk -F, '$1 == "work" { print $3 }')
buffers=$(sed -n 's/.*"buffers": \([0-9]*\).*/\1/p' "$tmp"/perfscope.trace/proc.*.json)
echo "check: perfscope counted $calls calls of work (expected $threads), $buffers buffers (at most $((alive + 1)))"

for ((r = 0; r < reps; r++)); do
	for ((k = 0; k < ${#names[@]}; k++)); do
		run_once "${names[(k + r) % ${#names[@]}]}"
	done
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
stubs_us=$(median "$tmp/stubs.t")
printf '%-10s %10s %14s %16s\n' command "median s" "peak RSS MiB" "us per thread"
for n in "${names[@]}"; do
	us=$(median "$tmp/$n.t")
	kib=$(median "$tmp/$n.rss")
	per="-"
	[[ $n == perfscope || $n == uftrace ]] &&
		per=$(awk -v t="$us" -v s="$stubs_us" -v n="$threads" 'BEGIN { printf "%.1f", (t - s) / n }')
	printf '%-10s %10.3f %14.1f %16s\n' "$n" "$(awk -v u="$us" 'BEGIN { print u / 1e6 }')" \
		"$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$per"
done

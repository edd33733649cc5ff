#!/usr/bin/env bash
# run_mpi.sh - the MPI targets: what libperfscope-mpi.so adds to each MPI call on the 0-byte
# ping-pong, and how perfscope mpi's analysis time and memory grow with the events.
#
# usage: bench/run_mpi.sh [--no-build] [latency|analysis]...   (default: both)
#   BUILD_DIR  build directory (default: <repo>/build-bench, configured as Release)
#   REPS       rounds of the ping-pong (default 7) and runs of each analysis (default 5)
#   EVENTS     event counts of the synthetic experiments (default "1000000 10000000")
#   OUT_BASE   where experiments go (default /dev/shm when writable, else $TMPDIR or /tmp)
#
# latency: examples/mpi/pingpong (ranks 0 and 1, 0-byte MPI_Send/MPI_Recv, 15 blocks of 20000
#   iterations after 5000 untimed; it prints the median half round trip of its blocks) run
#   three ways, interleaved round by round with the order rotated:
#     plain      mpirun -np 2 pingpong
#     bare       mpirun -np 2 -x LD_PRELOAD=libbare_pmpi.so pingpong (bench/bare_pmpi.c: TSC at
#                entry and exit, 16 bytes stored per event, no I/O: the floor of any tracer)
#     perfscope  perfscope record --mpi -o DIR -- mpirun -np 2 pingpong
#   Each iteration is one MPI_Send and one MPI_Recv on each rank, and the two ranks take turns,
#   so a half round trip holds one wrapped call of each rank's pair on the critical path: the
#   added latency per wrapped call is median(half RT, perfscope) - median(half RT, plain), the
#   medians over the rounds. Target: <= 100 ns. The first perfscope run is checked: its
#   experiment must hold every MPI_Send of rank 0 (perfscope mpi --routines).
# analysis: bench/gen_mpi_exp.py writes an 8-rank experiment of EVENTS MPI events (enter and
#   leave records) for each count; perfscope mpi DIR --waits and --traffic are timed (wall time,
#   median of REPS runs) with their peak RSS (GNU time, the largest of the runs). Linear growth:
#   time per event alike at 10^6 and 10^7 events (the ratio of the two times ~ 10).
# The load average before and after each part is printed: run it on a quiet machine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
reps=${REPS:-}
events=${EVENTS:-"1000000 10000000"}
base=${OUT_BASE:-}
if [[ -z $base ]]; then
	if [[ -d /dev/shm && -w /dev/shm ]]; then base=/dev/shm; else base=${TMPDIR:-/tmp}; fi
fi
nobuild=0
parts=()
for a in "$@"; do
	case $a in
	--no-build) nobuild=1 ;;
	latency | analysis) parts+=("$a") ;;
	*) echo "usage: run_mpi.sh [--no-build] [latency|analysis]..." >&2; exit 2 ;;
	esac
done
((${#parts[@]})) || parts=(latency analysis)

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
unset PERFSCOPE_CLOCK PERFSCOPE_TEST_CLOCK_SKEW PERFSCOPE_MPI_LOAD
command -v mpirun >/dev/null || { echo "run_mpi.sh: mpirun is needed" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "run_mpi.sh: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
if ((!nobuild)); then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 >/dev/null
fi
psc=$build/perfscope
pingpong=$build/examples/mpi/pingpong
for f in "$psc" "$pingpong"; do
	[[ -x $f ]] || { echo "run_mpi.sh: $f not built" >&2; exit 1; }
done
work=$(mktemp -d "$base/psc-bench-mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minmax() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
machine() {
	echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs, $(uname -r), $(mpirun --version | head -n 1)"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

latency() {
	local r=${reps:-7} i k mode half out
	mpicc -O2 -shared -fPIC "$here/bare_pmpi.c" -o "$work/libbare_pmpi.so"
	echo "== latency: 0-byte ping-pong, half round trip (ns), $r rounds; load before: $(load)"
	local -A runs=([plain]="" [bare]="" [perfscope]="")
	local modes=(plain bare perfscope)
	for ((i = 0; i < r; i++)); do
		for ((k = 0; k < 3; k++)); do
			mode=${modes[(i + k) % 3]}
			case $mode in
			plain) out=$(mpirun -np 2 "$pingpong") ;;
			bare) out=$(mpirun -np 2 -x LD_PRELOAD="$work/libbare_pmpi.so" "$pingpong") ;;
			perfscope)
				rm -rf "$work/rec"
				out=$("$psc" record --mpi -o "$work/rec" -- mpirun -np 2 "$pingpong")
				if ((i == 0)); then check_recorded; fi
				;;
			esac
			half=$(sed -n 's/^median half round trip: \([0-9.]*\) ns.*/\1/p' <<<"$out")
			[[ -n $half ]] || { echo "run_mpi.sh: no half round trip from $mode: $out" >&2; exit 1; }
			runs[$mode]+="$half "
		done
	done
	rm -rf "$work/rec"
	local mp mb ms
	printf '%-10s %10s %18s  %s\n' mode median "min..max" runs
	for mode in plain bare perfscope; do
		printf '%-10s %10s %18s  %s\n' "$mode" "$(tr ' ' '\n' <<<"${runs[$mode]}" | grep . | median)" \
			"$(tr ' ' '\n' <<<"${runs[$mode]}" | grep . | minmax)" "${runs[$mode]}"
	done
	mp=$(tr ' ' '\n' <<<"${runs[plain]}" | grep . | median)
	mb=$(tr ' ' '\n' <<<"${runs[bare]}" | grep . | median)
	ms=$(tr ' ' '\n' <<<"${runs[perfscope]}" | grep . | median)
	awk -v p="$mp" -v b="$mb" -v s="$ms" 'BEGIN {
		printf "added per wrapped call: perfscope %.1f ns (target <= 100), bare floor %.1f ns; half round trip perfscope/plain %.3f\n", s - p, b - p, s / p }'
	echo "load after: $(load)"
}

check_recorded() { # the first recorded run holds every MPI_Send of rank 0
	local sends
	"$psc" mpi "$work/rec" --routines --csv >"$work/routines.csv"
	sends=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["rank"] == "0" && $c["routine"] == "MPI_Send" { print $c["calls"] }' "$work/routines.csv")
	[[ $sends == $((5000 + 15 * 20000)) ]] ||
		{ echo "run_mpi.sh: the recorded ping-pong has '$sends' MPI_Send calls of rank 0, not 305000" >&2; exit 1; }
	echo "(checked: the recorded run holds rank 0's 305000 MPI_Send calls, $(du -sh "$work/rec" | cut -f1) of trace)"
}

analysis() {
	local r=${reps:-5} n view i t m
	echo "== analysis: perfscope mpi on synthetic 8-rank experiments, $r runs each; load before: $(load)"
	for n in $events; do
		python3 "$here/gen_mpi_exp.py" -e "$n" "$work/exp.$n"
		echo "   $(du -sh "$work/exp.$n" | cut -f1) on disk"
	done
	printf '%-10s %-10s %10s %14s %12s %14s\n' events view "median s" "min..max s" "peak MiB" "ns per event"
	for view in --waits --traffic; do
		for n in $events; do
			local times=() rss=0
			for ((i = 0; i < r; i++)); do
				t=$(date +%s%N)
				/usr/bin/time -f '%M' -o "$work/t" "$psc" mpi "$work/exp.$n" "$view" >/dev/null
				t=$((($(date +%s%N) - t) / 1000000))
				read -r m <"$work/t"
				times+=("$(awk -v t="$t" 'BEGIN { printf "%.3f", t / 1000 }')")
				((m > rss)) && rss=$m
			done
			t=$(printf '%s\n' "${times[@]}" | median)
			printf '%-10s %-10s %10s %14s %12d %14.0f\n' "$n" "$view" "$t" \
				"$(printf '%s\n' "${times[@]}" | minmax)" $((rss / 1024)) \
				"$(awk -v t="$t" -v n="$n" 'BEGIN { print t * 1e9 / n }')"
		done
	done
	echo "load after: $(load)"
}

machine
for p in "${parts[@]}"; do "$p"; done

#!/usr/bin/env bash
# run_sample.sh - cost of sampling: perfscope record --sample against the plain program and
# perf record, and how many samples a second the launcher drains and writes without loss.
#
# usage: bench/run_sample.sh [--no-build]
#   BUILD_DIR    build directory (default: <repo>/build-bench, configured as Release)
#   REPS         runs of each overhead command, interleaved (default 7, at least 7)
#   ITERS        iterations per thread of the CPU-bound load (default 1100000000: about 1.5 s
#                per thread on the machine of bench/README.md)
#   GJ_N         matrix size of gauss_jordan_plain (default 1300: about 1.4 s)
#   DRAIN_REPS   runs of each drain command, interleaved (default 3)
#   DRAIN_ITERS  iterations per thread of the load for the 2 x 50 kHz drain (default 800000000)
#   DRAIN_PITERS iterations per thread of the load for the drain with a 10 us period (default
#                50000000: sampled every 10 us of CPU time, the threads get a few % of it)
#   OUT_BASE     where experiments and perf.data go (default: /dev/shm when it is a writable
#                directory, else $TMPDIR or /tmp)
#
# The load is a small C program compiled by this script into its temporary directory
# (`cc -O2 -pthread`): T threads each run ITERS steps of a dependent xorshift + floating-point
# chain (the loop of examples/spin.c, for a fixed count instead of a fixed time) and print
# their sums, the same in every run. Every command runs the program under
# `/usr/bin/time -o FILE` (inner) inside the tool, so that the program's own CPU time is known:
#   plain:     /usr/bin/time PROG
#   perfscope: perfscope record --sample=HZ -o DIR -- /usr/bin/time PROG
#   perf:      perf record --no-bpf-event -e cpu-clock -F HZ -o FILE -- /usr/bin/time PROG
# perf 6.1 runs a side-band thread for BPF events that polls with a 1 s timeout and joins it at
# exit, which adds about 1 s to every perf record (the fixed-cost group measures it as
# perfbpf); --no-bpf-event turns off only that side band, not any sample.
#
# Groups, each run in interleaved rounds (round i runs every command of the group once, the
# order rotated from round to round), every run timed by date +%s%N around /usr/bin/time (the
# outer one: the tool's and the program's CPU time and peak RSS):
#   fixed:  the load with 0 iterations: plain, perfscope and perf at 1 kHz, perf without
#           --no-bpf-event: the start and exit cost of each way of running
#   t1, t2: the load on 1 and 2 threads: plain, perfscope and perf at 1 kHz and at 10 kHz
#   gj:     gauss_jordan_plain GJ_N (1 thread, memory-heavy): the same five
#   drain:  the load on 2 threads sampled at 50 kHz per thread (--sample=50000, perf -F 50000),
#           and every 10 us of cpu-clock (--period 10000, perf -c 10000): samples per second
#           of wall time, lost samples and throttling, from meta.json's "sampling" object and
#           from perf report --stats
# Before timing, every command is run once and checked (its output equals the plain run's,
# samples > 0). The CPU time the whole machine spent during the timed runs (/proc/stat) minus
# what this script and its commands spent is the other processes' share, per group: above
# 5 % of one CPU it is warned about.
# Prints a table of medians, then the targets: overhead (perfscope/plain - 1) <= 2 % at 1 kHz
# and <= 5 % at 10 kHz, perfscope/perf wall time <= 1.1, and >= 100000 samples/s drained with
# no loss (with the 10 us period, which offers 200000/s; 2 x 50 kHz offers at most 100000/s).
# Per sample it also shows the kernel's cost (the program's CPU time above the plain run's,
# over the samples: the cpu-clock timer interrupt and the sample written to the ring) and the
# tool's own CPU time (the outer CPU time minus the program's: perfscope's drain thread, perf's
# process).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
reps=${REPS:-7}
iters=${ITERS:-1100000000}
gj_n=${GJ_N:-1300}
dreps=${DRAIN_REPS:-3}
diters=${DRAIN_ITERS:-800000000}
dpiters=${DRAIN_PITERS:-50000000}

((reps >= 7)) || { echo "run_sample.sh: REPS must be at least 7" >&2; exit 2; }
((dreps >= 1)) || { echo "run_sample.sh: DRAIN_REPS must be at least 1" >&2; exit 2; }
if [[ ${1:-} != --no-build ]]; then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target perfscope_cli gauss_jordan_plain >/dev/null
fi
psc=$build/perfscope
gj=$build/bench/gauss_jordan_plain
for f in "$psc" "$gj"; do
	[[ -x $f ]] || { echo "run_sample.sh: $f not built" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "run_sample.sh: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }
perf=$(command -v perf) || { echo "run_sample.sh: perf not found (scripts/install-deps.sh installs linux-perf)" >&2; exit 1; }
cc=${CC:-cc}

if [[ -z ${OUT_BASE:-} ]]; then
	OUT_BASE=${TMPDIR:-/tmp}
	[[ -d /dev/shm && -w /dev/shm ]] && OUT_BASE=/dev/shm
fi
tmp=$(mktemp -d "$OUT_BASE/psc-bench-sample.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset PERFSCOPE_OUT PERFSCOPE_EVENTS PERFSCOPE_BUFFER_SIZE
export LC_ALL=C

# the load: T threads of ITERS dependent steps each, a fixed amount of work
cat >"$tmp/load.c" <<'EOF'
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long iters;
static double result[64];

static void *work(void *arg)
{
	long t = (long)arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL + (uint64_t)t;
	double sum = 0.0;

	for (unsigned long k = 0; k < iters; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum = sum * 0.999999 + (double)(x >> 11) * 0x1p-53;
	}
	result[t] = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = argc > 2 ? atol(argv[2]) : 1;
	pthread_t th[64];

	if (argc != 3 || nt < 1 || nt > 64) {
		fprintf(stderr, "usage: load ITERS THREADS (1..64)\n");
		return 2;
	}
	iters = strtoul(argv[1], NULL, 10);
	for (long t = 1; t < nt; t++)
		if (pthread_create(&th[t], NULL, work, (void *)t))
			return 1;
	work((void *)0);
	for (long t = 1; t < nt; t++)
		pthread_join(th[t], NULL);
	for (long t = 0; t < nt; t++)
		printf("thread %ld: %.6f\n", t, result[t]);
	return 0;
}
EOF
"$cc" -O2 -pthread "$tmp/load.c" -o "$tmp/load"
load=$tmp/load

rate0=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo -)
cpu_pct=$(cat /proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null || echo -)

# the commands; {OUT} is replaced by a fresh output path, {IN} by the inner time's file
inner="/usr/bin/time -f %e,%U,%S -o {IN}"
declare -A cmd
# add GROUP PROG..: the five overhead commands of GROUP on PROG
add() {
	local g=$1
	shift
	cmd[${g}_plain]="$inner $*"
	cmd[${g}_psc1k]="$psc record --sample=1000 -o {OUT} -- $inner $*"
	cmd[${g}_perf1k]="$perf record --no-bpf-event -e cpu-clock -F 1000 -o {OUT} -- $inner $*"
	cmd[${g}_psc10k]="$psc record --sample=10000 -o {OUT} -- $inner $*"
	cmd[${g}_perf10k]="$perf record --no-bpf-event -e cpu-clock -F 10000 -o {OUT} -- $inner $*"
}
add f "$load" 0 1
unset 'cmd[f_psc10k]' 'cmd[f_perf10k]'
cmd[f_perfbpf]="$perf record -e cpu-clock -F 1000 -o {OUT} -- $inner $load 0 1"
add t1 "$load" "$iters" 1
add t2 "$load" "$iters" 2
add gj "$gj" "$gj_n"
cmd[d_plain]="$inner $load $diters 2"
cmd[d_psc50k]="$psc record --sample=50000 -o {OUT} -- $inner $load $diters 2"
cmd[d_perf50k]="$perf record --no-bpf-event -e cpu-clock -F 50000 -o {OUT} -- $inner $load $diters 2"
cmd[d_pplain]="$inner $load $dpiters 2"
cmd[d_pscp10]="$psc record --period 10000 -o {OUT} -- $inner $load $dpiters 2"
cmd[d_perfp10]="$perf record --no-bpf-event -e cpu-clock -c 10000 -o {OUT} -- $inner $load $dpiters 2"

declare -A ok note
# collect NAME: samples, lost and throttled of NAME's last run, appended to $tmp/NAME.{samples,lost,thr}
collect() {
	local n=$1 d=$tmp/$1.data s=0 l=0 t=0
	case $n in
	*_psc*)
		s=$(sed -n 's/^ *"samples": \([0-9]*\).*/\1/p' "$d/meta.json" | tail -n 1)
		l=$(sed -n 's/^ *"lost": \([0-9]*\).*/\1/p' "$d/meta.json" | tail -n 1)
		t=$(sed -n 's/^ *"throttled": \([0-9]*\).*/\1/p' "$d/meta.json" | tail -n 1)
		;;
	*_perf*)
		s=$(sed -n 's/.*Captured and wrote .*(\([0-9]*\) samples).*/\1/p' "$tmp/$n.err" | tail -n 1)
		read -r l t < <("$perf" report -i "$d" --stats 2>/dev/null | awk '
			/^ *LOST(_SAMPLES)? events:/ { l += $3 } /^ *THROTTLE events:/ { t += $3 }
			/stats:$/ && !/Aggregated/ { exit } END { print l + 0, t + 0 }')
		;;
	esac
	echo "${s:-0}" >>"$tmp/$n.samples"
	echo "${l:-0}" >>"$tmp/$n.lost"
	echo "${t:-0}" >>"$tmp/$n.thr"
}

# run_once NAME OUTFILE: run NAME's command once (program output in OUTFILE), timed; appends
# wall s, peak KiB, CPU s (user + system, tool and program), the program's wall and CPU s
# (inner time) to $tmp/NAME.{t,rss,cpu,pt,pcpu}, then its samples (collect); the output path
# {OUT} is $tmp/NAME.data (removed before the run, kept after it)
run_once() {
	local name=$1 outfile=$2 c t0 t1 st=0
	c=${cmd[$name]//\{OUT\}/$tmp/$name.data}
	c=${c//\{IN\}/$tmp/$name.in1}
	rm -rf "$tmp/$name.data" "$tmp/$name.in1"
	t0=$(date +%s%N)
	# shellcheck disable=SC2086 # the command is a word list without quoting
	/usr/bin/time -f '%M %U %S' -o "$tmp/$name.rss1" $c >"$outfile" 2>"$tmp/$name.err" || st=$?
	t1=$(date +%s%N)
	if ((st != 0)) || [[ ! -s $tmp/$name.in1 ]]; then
		echo "run_sample.sh: $name: exit status $st: $c: $(tail -c 300 "$tmp/$name.err")" >&2
		return 1
	fi
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }' >>"$tmp/$name.t"
	tail -n 1 "$tmp/$name.rss1" | awk '{ print $1 }' >>"$tmp/$name.rss"
	tail -n 1 "$tmp/$name.rss1" | awk '{ print $2 + $3 }' >>"$tmp/$name.cpu"
	tail -n 1 "$tmp/$name.in1" | awk -F, '{ print $1 }' >>"$tmp/$name.pt"
	tail -n 1 "$tmp/$name.in1" | awk -F, '{ print $2 + $3 }' >>"$tmp/$name.pcpu"
	collect "$name"
}

# check NAME REF: one run, then its output must equal REF's and a tool must have taken samples
check() {
	local name=$1 ref=$2 out=$tmp/$1.out f samples
	ok[$name]=0
	if ! run_once "$name" "$out"; then
		note[$name]="failed: $(tail -n 1 "$tmp/$name.err")"
		return 0
	fi
	samples=$(tail -n 1 "$tmp/$name.samples")
	for f in t rss cpu pt pcpu samples lost thr; do
		: >"$tmp/$name.$f"
	done
	if [[ $name != "$ref" ]] && ! cmp -s "$out" "$tmp/$ref.out"; then
		note[$name]="wrong output: $(head -c 200 "$out")"
		return 0
	fi
	# the fixed-cost runs do no work: they may end before the first sample
	if [[ $name != f_* && ($name == *_psc* || $name == *_perf*) ]] && ((samples == 0)); then
		note[$name]="no samples: $(tail -c 300 "$tmp/$name.err")"
		return 0
	fi
	ok[$name]=1
}

groups=(f t1 t2 gj)
declare -A members
members[f]="f_plain f_psc1k f_perf1k f_perfbpf"
for g in t1 t2 gj; do
	members[$g]="${g}_plain ${g}_psc1k ${g}_perf1k ${g}_psc10k ${g}_perf10k"
done
members[d]="d_plain d_psc50k d_perf50k d_pplain d_pscp10 d_perfp10"

echo "checking every command once (load: $iters iterations per thread; gauss_jordan $gj_n)" >&2
for g in f t1 t2 gj d; do
	for n in ${members[$g]}; do
		ref=${g}_plain
		[[ $n == d_pplain || $n == d_*p10 ]] && ref=d_pplain
		check "$n" "$ref"
	done
done
for n in "${!note[@]}"; do
	echo "run_sample.sh: $n left out: ${note[$n]}" >&2
done

# busy CPU seconds of the machine / of this shell and its children so far
machine_cpu() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat; }
own_cpu() { # own_cpu FILE: the output of bash's times (run in this shell, not a subshell)
	awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } } END { printf "%.2f\n", s }' "$1"
}
declare -A others
# rounds GROUP REPS NAME..: REPS rounds of the commands that passed their check, order
# rotated; the other processes' CPU use during them goes to others[GROUP] ("s wall pct")
rounds() {
	local group=$1 nrep=$2 r k i n m0 m1 o0 o1 w0 w1
	shift 2
	local -a names=()
	for n in "$@"; do
		((ok[$n])) && names+=("$n")
	done
	((${#names[@]})) || return 0
	times >"$tmp/times.0"
	m0=$(machine_cpu) o0=$(own_cpu "$tmp/times.0") w0=$(date +%s.%N)
	for ((r = 0; r < nrep; r++)); do
		local line="$group round $((r + 1)):"
		for ((k = 0; k < ${#names[@]}; k++)); do
			i=$(((r + k) % ${#names[@]}))
			n=${names[$i]}
			run_once "$n" /dev/null || { echo "run_sample.sh: $n failed in round $((r + 1))" >&2; exit 1; }
			rm -rf "$tmp/$n.data"
			line+=$(printf ' %s %.3f' "${n#*_}" "$(tail -n 1 "$tmp/$n.t")")
		done
		echo "$line" >&2
	done
	times >"$tmp/times.1"
	m1=$(machine_cpu) o1=$(own_cpu "$tmp/times.1") w1=$(date +%s.%N)
	others[$group]=$(awk -v m0="$m0" -v m1="$m1" -v o0="$o0" -v o1="$o1" -v w0="$w0" -v w1="$w1" \
		'BEGIN { o = (m1 - m0) - (o1 - o0); if (o < 0) o = 0; printf "%.1f %.0f %.1f\n", o, w1 - w0, 100 * o / (w1 - w0) }')
}

wall0=$(date +%s)
for g in "${groups[@]}"; do
	# shellcheck disable=SC2086 # a list of names
	rounds "$g" "$reps" ${members[$g]}
done
# shellcheck disable=SC2086
rounds d "$dreps" ${members[d]}
wall1=$(date +%s)
rate1=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo -)

# rate_of NAME: median over NAME's runs of samples / wall seconds, - when left out
rate_of() {
	if ((ok[$1])); then
		paste -d' ' "$tmp/$1.samples" "$tmp/$1.t" | awk '{ printf "%.0f\n", $1 / $2 }' >"$tmp/$1.rate"
		median "$tmp/$1.rate"
	else
		echo -
	fi
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "-" }'; }
# med NAME [FIELD]: median of NAME's FIELD (t by default), - when NAME was left out
med() { if ((ok[$1])); then median "$tmp/$1.${2:-t}"; else echo -; fi; }
# tool CPU of each run: outer CPU minus the program's
toolcpu() {
	if ((ok[$1])); then
		paste -d' ' "$tmp/$1.cpu" "$tmp/$1.pcpu" | awk '{ print $1 - $2 }' >"$tmp/$1.tcpu"
		median "$tmp/$1.tcpu"
	else
		echo -
	fi
}
# calc EXPR VAR=VALUE..: awk expression over numbers, - when any value is -
calc() {
	local e=$1 a
	shift
	for a in "$@"; do
		[[ ${a#*=} == - || -z ${a#*=} ]] && { echo -; return; }
	done
	local -a args=()
	for a in "$@"; do
		args+=(-v "$a")
	done
	awk "${args[@]}" "BEGIN { $e }"
}

# ---- table
echo
echo "run_sample: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r), $("$perf" --version)," \
	"outputs in $OUT_BASE, $reps runs each ($dreps for the drain), medians, $((wall1 - wall0)) s of timed runs"
echo "kernel.perf_event_max_sample_rate=$rate0 (after the runs: $rate1), kernel.perf_cpu_time_max_percent=$cpu_pct"
for g in "${groups[@]}" d; do
	[[ -n ${others[$g]:-} ]] || continue
	read -r o_s w_s o_pct <<<"${others[$g]}"
	echo "group $g: other processes used $o_s CPU-seconds during its $w_s s of timed runs ($o_pct % of one CPU)"
	awk -v p="$o_pct" 'BEGIN { exit !(p > 5) }' &&
		echo "WARNING: the machine was busy with other work during group $g: its times are not reliable"
done
echo "load: $iters iterations per thread (t1: 1 thread, t2: 2); gj: gauss_jordan_plain $gj_n;" \
	"drain: load $diters x 2 threads at 50 kHz, load $dpiters x 2 threads every 10 us"
printf '%-11s %9s %9s %9s %8s %8s %8s %9s %7s %6s %7s\n' command "median s" "min s" "max s" \
	"CPU s" "prog CPU" "tool CPU" samples lost thr "RSS MiB"
for g in "${groups[@]}" d; do
	for n in ${members[$g]}; do
		if ! ((ok[$n])); then
			printf '%-11s %9s %9s %9s %8s %8s %8s %9s %7s %6s %7s\n' "$n" - - - - - - - - - -
			continue
		fi
		awk -v n="$n" -v m="$(med "$n")" -v lo="$(sort -g "$tmp/$n.t" | head -1)" \
			-v hi="$(sort -g "$tmp/$n.t" | tail -1)" -v cpu="$(med "$n" cpu)" \
			-v pcpu="$(med "$n" pcpu)" -v tcpu="$(toolcpu "$n")" -v s="$(med "$n" samples)" \
			-v l="$(sort -g "$tmp/$n.lost" | tail -1)" -v th="$(sort -g "$tmp/$n.thr" | tail -1)" \
			-v rss="$(med "$n" rss)" 'BEGIN {
			printf "%-11s %9.4f %9.4f %9.4f %8.2f %8.2f %8.2f %9s %7s %6s %7.1f\n", n, m, lo, hi,
				cpu, pcpu, tcpu, s, l, th, rss / 1024 }'
	done
done
echo "(samples: median; lost and thr(ottled): the largest of the runs; prog CPU: the program's" \
	"user + system time; tool CPU: the rest of the run's)"

# ---- targets
echo
printf '%-50s %12s %10s %6s\n' target value goal met
# target NAME VALUE OP GOAL: one line of the targets table (VALUE - when not measured)
target() {
	awk -v name="$1" -v v="$2" -v op="$3" -v g="$4" 'BEGIN {
		if (v == "-" || v == "") { printf "%-50s %12s %10s %6s\n", name, "-", op " " g, "n/a"; exit }
		met = op == "<=" ? v + 0 <= g + 0 : v + 0 >= g + 0
		printf "%-50s %12s %10s %6s\n", name, v, op " " g, met ? "yes" : "NO" }'
}
result="RESULT"
declare -A label=([t1]="load, 1 thread" [t2]="load, 2 threads" [gj]="gauss_jordan")
for g in t1 t2 gj; do
	for hz in 1k 10k; do
		goal=2
		[[ $hz == 10k ]] && goal=5
		ov=$(calc 'printf "%.2f\n", (a / b - 1) * 100' a="$(med "${g}_psc$hz")" b="$(med "${g}_plain")")
		r=$(calc 'printf "%.3f\n", a / b' a="$(med "${g}_psc$hz")" b="$(med "${g}_perf$hz")")
		target "${label[$g]} ${hz}Hz: perfscope overhead, %" "$ov" "<=" "$goal"
		target "${label[$g]} ${hz}Hz: perfscope/perf wall time" "$r" "<=" 1.1
		result+=" ${g}_${hz}_overhead_pct=$ov ${g}_${hz}_vs_perf=$r"
	done
done
# the drain target on the run that offers more than 100000 samples/s (2 threads, one sample
# every 10 us of CPU time each); 2 x 50 kHz offers at most 100000/s, it is in the table below
rate=$(rate_of d_pscp10)
lost=$( ((ok[d_pscp10])) && sort -g "$tmp/d_pscp10.lost" | tail -1 || echo -)
target "drain, 2 threads, period 10 us: perfscope samples/s" "$rate" ">=" 100000
target "drain, 2 threads, period 10 us: samples lost" "$lost" "<=" 0
result+=" drain_samples_per_s=$rate drain_lost=$lost"

# ---- what the figures are made of
echo
printf '%-10s %-5s %9s %9s %9s %10s %11s %11s %10s %10s %8s\n' group Hz "psc/plain" "perf/plain" \
	"psc/perf" "ovh ratio" "net psc %" "net perf %" "kernel us" "tool us" "spread %"
# spread NAME: (max - min) / median of NAME's runs, in %: how far apart the runs are
spread() {
	if ((ok[$1])); then
		sort -g "$tmp/$1.t" | awk '{ v[NR] = $1 } END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.1f\n", (v[NR] - v[1]) / m * 100 }'
	else
		echo -
	fi
}
# per sample, us: the program's CPU time above the plain run's, the tool's own CPU time; GNU
# time gives CPU seconds to 0.01 s, so below 10000 samples the figure would be noise: -
per_sample() { calc 'if (s < 10000) print "-"; else printf "%.2f\n", (a - b) / s * 1e6' a="$1" b="$2" s="$3"; }
for g in t1 t2 gj; do
	for hz in 1k 10k; do
		p=$(med "${g}_plain") s=$(med "${g}_psc$hz") f=$(med "${g}_perf$hz")
		# net: each tool's fixed cost (its run on 0 iterations) taken off
		printf '%-10s %-5s %9s %9s %9s %10s %11s %11s %10s %10s %8s\n' "$g" "$hz" \
			"$(calc 'printf "%.4f\n", s / p' s="$s" p="$p")" \
			"$(calc 'printf "%.4f\n", f / p' f="$f" p="$p")" \
			"$(calc 'printf "%.4f\n", s / f' s="$s" f="$f")" \
			"$(calc 'if (f - p <= 0) print "-"; else printf "%.2f\n", (s - p) / (f - p)' s="$s" f="$f" p="$p")" \
			"$(calc 'printf "%.2f\n", ((s - s0) / (p - p0) - 1) * 100' s="$s" s0="$(med f_psc1k)" p="$p" p0="$(med f_plain)")" \
			"$(calc 'printf "%.2f\n", ((f - f0) / (p - p0) - 1) * 100' f="$f" f0="$(med f_perf1k)" p="$p" p0="$(med f_plain)")" \
			"$(per_sample "$(med "${g}_psc$hz" pcpu)" "$(med "${g}_plain" pcpu)" "$(med "${g}_psc$hz" samples)")/$(per_sample "$(med "${g}_perf$hz" pcpu)" "$(med "${g}_plain" pcpu)" "$(med "${g}_perf$hz" samples)")" \
			"$(per_sample "$(toolcpu "${g}_psc$hz")" 0 "$(med "${g}_psc$hz" samples)")/$(per_sample "$(toolcpu "${g}_perf$hz")" 0 "$(med "${g}_perf$hz" samples)")" \
			"$(spread "${g}_plain")"
	done
done
echo "(ovh ratio: (perfscope - plain) / (perf - plain); net: wall time over the plain run's with each" \
	"tool's and the plain run's fixed cost taken off; kernel us and tool us: per sample, perfscope/perf," \
	"- below 10000 samples; spread: (max - min) / median of the plain runs)"
echo "fixed cost over the plain run, s: perfscope $(calc 'printf "%.4f\n", a - b' a="$(med f_psc1k)" b="$(med f_plain)")," \
	"perf --no-bpf-event $(calc 'printf "%.4f\n", a - b' a="$(med f_perf1k)" b="$(med f_plain)")," \
	"perf $(calc 'printf "%.4f\n", a - b' a="$(med f_perfbpf)" b="$(med f_plain)")"
printf '%-10s %9s %9s %10s %10s %10s %7s %9s %9s %9s\n' drain "wall s" "prog s" samples \
	"offered/s" "samples/s" lost throttled "kernel us" "tool us"
for n in d_psc50k d_perf50k d_pscp10 d_perfp10; do
	base=d_plain offered=100000 # 2 threads at 50 kHz of their CPU time
	[[ $n == *p10 ]] && base=d_pplain offered=200000 # 2 threads, one sample per 10 us each
	printf '%-10s %9s %9s %10s %10s %10s %7s %9s %9s %9s\n' "$n" \
		"$(calc 'printf "%.3f\n", t' t="$(med "$n")")" "$(med "$n" pt)" "$(med "$n" samples)" \
		"$offered" "$(rate_of "$n")" \
		"$( ((ok[$n])) && sort -g "$tmp/$n.lost" | tail -1 || echo -)" \
		"$( ((ok[$n])) && sort -g "$tmp/$n.thr" | tail -1 || echo -)" \
		"$(per_sample "$(med "$n" pcpu)" "$(med "$base" pcpu)" "$(med "$n" samples)")" \
		"$(per_sample "$(toolcpu "$n")" 0 "$(med "$n" samples)")"
	result+=" ${n}_samples_per_s=$(rate_of "$n") ${n}_tool_us=$(per_sample "$(toolcpu "$n")" 0 "$(med "$n" samples)")"
done
echo "(offered/s: what the sampling asks for while both threads run; samples/s: median over the" \
	"runs of samples / the command's wall time; the plain runs of the drain: d_plain $(med d_plain) s," \
	"d_pplain $(med d_pplain) s)"
echo "$result"

#!/usr/bin/env bash
# run_trace.sh - cost of function tracing: perfscope against the bare hooks and uftrace.
#
# usage: bench/run_trace.sh [--no-build]
#   BUILD_DIR  build directory (default: <repo>/build-bench, configured as Release)
#   REPS       runs of each command, interleaved (default 5, at least 5)
#   FIB_N      argument of fib (default 34: 18454929 calls of fib)
#   GJ_N       matrix size of gauss_jordan (default 1000: 999000 calls of row_axpy)
#   OUT_BASE   where traces go (default: /dev/shm when it is a writable directory, else $TMPDIR
#              or /tmp); a fib(34) trace is about 590 MB per tool, its Chrome JSON about 2 GB
#   CPU        pin every command to this CPU (default: -1, no pinning; uftrace and perfscope
#              may write from a second thread, and perfscope report reads ahead from one)
#   PERFSCOPE_COMPRESS  passed to perfscope record (default auto: how many chunks the writer
#              compresses depends on the machine's load; report's time depends a little on it,
#              so the summary says how many of the fib trace's chunks are compressed)
#
# One run measures, in interleaved rounds (round i runs every command of a group once, the
# order rotated from round to round), each command timed by date +%s%N around
# /usr/bin/time, which gives its peak RSS and CPU time (user + system, for information: it
# varies less than wall time when other work shares the CPUs). The CPU time the whole machine
# spent during the timed runs (/proc/stat) minus what this script and its commands spent
# (bash's times) is the other processes' share: above 5 % of one CPU it is warned about. The commands:
#   fib:           fib_plain (no -finstrument-functions), fib with glibc's empty hooks (stubs),
#                  + LD_PRELOAD=libbare_hook.so (rdtsc + 16-byte store), + perfscope record
#                  --functions, + uftrace record
#   gauss_jordan:  the same five
#   analysis:      perfscope report vs uftrace report on the fib traces; perfscope export
#                  --format chrome vs uftrace dump --chrome
# then prints a table of medians and the targets: ns per call pair = (t - t_stubs) / pairs,
# perfscope/bare <= 1.3, perfscope/uftrace <= 0.3; gauss_jordan slowdown perfscope/stubs
# <= 3 %; stream bytes per event <= 16; report >= 5x faster than uftrace report with peak RSS
# <= 64 MiB; Chrome export >= 5x faster than uftrace dump --chrome.
# Before timing, every command is run once and checked (program output, call counts in both
# tools' reports); a tool that fails is left out (shown as -) and the reason printed.
# shellcheck disable=SC2016,SC2034 # the checks are snippets run by eval, which use these variables
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build-bench}
reps=${REPS:-5}
fib_n=${FIB_N:-34}
gj_n=${GJ_N:-1000}
cpu=${CPU:--1}

((reps >= 5)) || { echo "run_trace.sh: REPS must be at least 5" >&2; exit 2; }
if [[ ${1:-} != --no-build ]]; then
	cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target fib gauss_jordan fib_plain gauss_jordan_plain \
		bare_hook perfscope perfscope_cli >/dev/null
fi
psc=$build/perfscope
bare=$build/bench/libbare_hook.so
fib=$build/examples/fib
fib_plain=$build/bench/fib_plain
gj=$build/examples/gauss_jordan
gj_plain=$build/bench/gauss_jordan_plain
for f in "$psc" "$fib" "$fib_plain" "$gj" "$gj_plain"; do
	[[ -x $f ]] || { echo "run_trace.sh: $f not built" >&2; exit 1; }
done
[[ -f $bare ]] || { echo "run_trace.sh: $bare not built" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "run_trace.sh: GNU time (/usr/bin/time) is needed for peak RSS: apt-get install time" >&2; exit 1; }
uftrace=$(command -v uftrace || true)

if [[ -z ${OUT_BASE:-} ]]; then
	OUT_BASE=${TMPDIR:-/tmp}
	[[ -d /dev/shm && -w /dev/shm ]] && OUT_BASE=/dev/shm
fi
tmp=$(mktemp -d "$OUT_BASE/psc-bench-trace.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset PERFSCOPE_OUT PERFSCOPE_EVENTS PERFSCOPE_BUFFER_SIZE
export LC_ALL=C

pin=()
((cpu >= 0)) && pin=(taskset -c "$cpu")

# fibonacci F(k) with F(1) = F(2) = 1; fib(n) makes 2 F(n+1) - 1 calls, main one more
fibo() { awk -v k="$1" 'BEGIN { a = 0; b = 1; for (i = 0; i < k; i++) { t = a + b; a = b; b = t } printf "%d\n", a }'; }
fib_calls=$((2 * $(fibo $((fib_n + 1))) - 1))
fib_pairs=$((fib_calls + 1))
fib_result=$(fibo "$fib_n")
gj_axpy=$((gj_n * (gj_n - 1)))
gj_pairs=$((gj_axpy + 2 * gj_n + 4)) # + find_pivot, scale_row, main, init, checksum, residual

# the commands; {OUT} is replaced by a fresh output path before every run (removed untimed)
declare -A cmd
cmd[fib_plain]="$fib_plain $fib_n"
cmd[fib_stubs]="$fib $fib_n"
cmd[fib_bare]="env LD_PRELOAD=$bare $fib $fib_n"
cmd[fib_perfscope]="$psc record --functions -o {OUT} -- $fib $fib_n"
cmd[fib_uftrace]="$uftrace record --no-libcall --no-sched -d {OUT} $fib $fib_n"
cmd[gj_plain]="$gj_plain $gj_n"
cmd[gj_stubs]="$gj $gj_n"
cmd[gj_bare]="env LD_PRELOAD=$bare $gj $gj_n"
cmd[gj_perfscope]="$psc record --functions -o {OUT} -- $gj $gj_n"
cmd[gj_uftrace]="$uftrace record --no-libcall --no-sched -d {OUT} $gj $gj_n"
# fib(1) (2 call pairs): the fixed cost of each way of running (start-up, buffers, exit)
for t in stubs bare perfscope uftrace; do
	cmd[fib1_$t]="${cmd[fib_$t]% *} 1"
done
# the analyses read the fib traces kept from the checks
cmd[report_perfscope]="$psc report $tmp/fib_perfscope.keep"
cmd[report_uftrace]="$uftrace report --no-pager -d $tmp/fib_uftrace.keep"
cmd[export_perfscope]="$psc export $tmp/fib_perfscope.keep --format chrome -o {OUT}"
cmd[export_uftrace]="$uftrace dump --no-pager --chrome -d $tmp/fib_uftrace.keep"

declare -A ok note
# run_once NAME OUTFILE: run NAME's command once (output of the program in OUTFILE), timed;
# appends wall seconds, peak KiB and CPU seconds (user + system, all threads and children) to
# $tmp/NAME.t, $tmp/NAME.rss and $tmp/NAME.cpu; the output path {OUT} is
# $tmp/NAME.trace (removed before the run, kept after it)
run_once() {
	local name=$1 outfile=$2 c t0 t1 st=0
	c=${cmd[$name]//\{OUT\}/$tmp/$name.trace}
	rm -rf "$tmp/$name.trace"
	t0=$(date +%s%N)
	# shellcheck disable=SC2086 # the command is a word list without quoting
	"${pin[@]}" /usr/bin/time -f '%M %U %S' -o "$tmp/$name.rss1" $c >"$outfile" 2>"$tmp/$name.err" || st=$?
	t1=$(date +%s%N)
	if ((st != 0)); then
		echo "run_trace.sh: $name: exit status $st: $c: $(tail -c 300 "$tmp/$name.err")" >&2
		return 1
	fi
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }' >>"$tmp/$name.t"
	tail -n 1 "$tmp/$name.rss1" | awk '{ print $1 }' >>"$tmp/$name.rss"
	tail -n 1 "$tmp/$name.rss1" | awk '{ print $2 + $3 }' >>"$tmp/$name.cpu"
}

# sanity check of NAME: one run, then CHECK (a shell snippet given $out) must succeed
check() {
	local name=$1 what=$2 out=$tmp/$1.out
	ok[$name]=0
	if [[ $name == *uftrace && -z $uftrace ]]; then
		note[$name]="uftrace is not installed"
		return 0
	fi
	if ! run_once "$name" "$out"; then
		note[$name]="failed: $(tail -n 1 "$tmp/$name.err")"
		return 0
	fi
	: >"$tmp/$name.t"
	: >"$tmp/$name.rss"
	: >"$tmp/$name.cpu"
	if ! eval "$what"; then
		note[$name]="wrong result: $(head -c 300 "$out") $(tail -c 300 "$tmp/$name.err")"
		return 0
	fi
	ok[$name]=1
}

# calls of FUNCTION in perfscope's CSV report of DIR / in uftrace's report of DIR
psc_calls() {
	"$psc" report "$1" --csv 2>/dev/null |
		awk -F, -v f="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["name"] == f { print $c["calls"]; exit }'
}
uftrace_calls() {
	"$uftrace" report --no-pager -d "$1" 2>/dev/null | awk -v f="$2" '$NF == f { print $(NF - 1); exit }'
}

echo "checking every command once (fib($fib_n): $fib_calls calls of fib, gauss_jordan $gj_n: $gj_axpy of row_axpy)" >&2
check fib_plain 'grep -qx "fib($fib_n) = $fib_result" "$out"'
check fib_stubs 'grep -qx "fib($fib_n) = $fib_result" "$out"'
check fib_bare 'grep -qx "fib($fib_n) = $fib_result" "$out" &&
	[[ $(BARE_HOOK_REPORT=1 LD_PRELOAD=$bare $fib $fib_n 2>&1 >/dev/null) == "bare_hook: $((2 * fib_pairs)) records in the main thread" ]]'
check fib_perfscope 'grep -qx "fib($fib_n) = $fib_result" "$out" &&
	[[ $(psc_calls "$tmp/fib_perfscope.trace" fib) == "$fib_calls" ]]'
check fib_uftrace 'grep -qx "fib($fib_n) = $fib_result" "$out" &&
	[[ $(uftrace_calls "$tmp/fib_uftrace.trace" fib) == "$fib_calls" ]]'
check gj_plain 'grep -q "^sum of the inverse" "$out" && grep -q "below 1e-12" "$out"'
for t in stubs bare perfscope uftrace; do
	check fib1_$t 'grep -qx "fib(1) = 1" "$out"'
done
gj_sum=$(grep "^sum of the inverse" "$tmp/gj_plain.out" || true)
check gj_stubs 'grep -qxF "$gj_sum" "$out"'
check gj_bare 'grep -qxF "$gj_sum" "$out"'
check gj_perfscope 'grep -qxF "$gj_sum" "$out" &&
	[[ $(psc_calls "$tmp/gj_perfscope.trace" row_axpy) == "$gj_axpy" ]]'
check gj_uftrace 'grep -qxF "$gj_sum" "$out" &&
	[[ $(uftrace_calls "$tmp/gj_uftrace.trace" row_axpy) == "$gj_axpy" ]]'
rm -rf "$tmp/gj_perfscope.trace" "$tmp/gj_uftrace.trace"
for t in perfscope uftrace; do
	if [[ ${ok[fib_$t]} == 1 ]]; then
		# the traces of the timed runs are removed; keep this one for report and export
		mv "$tmp/fib_$t.trace" "$tmp/fib_$t.keep"
	fi
done
if ((ok[fib_perfscope])); then
	check report_perfscope 'grep -q fib "$out"'
	check export_perfscope 'json_head=$(head -c 1 "$tmp/export_perfscope.trace") && [[ $json_head == [\[{] ]]'
	rm -f "$tmp/export_perfscope.trace"
else
	note[report_perfscope]="no perfscope trace"
	note[export_perfscope]="no perfscope trace"
	ok[report_perfscope]=0 ok[export_perfscope]=0
fi
if ((ok[fib_uftrace])); then
	check report_uftrace 'grep -q fib "$out"'
	check export_uftrace '[[ $(head -c 1 "$out") == [\[{] ]]'
	rm -f "$tmp/export_uftrace.out"
else
	note[report_uftrace]="no uftrace trace"
	note[export_uftrace]="no uftrace trace"
	ok[report_uftrace]=0 ok[export_uftrace]=0
fi
for n in "${!note[@]}"; do
	echo "run_trace.sh: $n left out: ${note[$n]}" >&2
done

# rounds GROUP NAME..: REPS rounds of the commands that passed their check, order rotated
rounds() {
	local group=$1 r k i n out
	shift
	local -a names=()
	for n in "$@"; do
		((ok[$n])) && names+=("$n")
	done
	((${#names[@]})) || return 0
	for ((r = 0; r < reps; r++)); do
		local line="$group round $((r + 1)):"
		for ((k = 0; k < ${#names[@]}; k++)); do
			i=$(((r + k) % ${#names[@]}))
			n=${names[$i]}
			out=/dev/null
			[[ $n == export_uftrace ]] && out=$tmp/export_uftrace.json
			run_once "$n" "$out" || { echo "run_trace.sh: $n failed in round $((r + 1))" >&2; exit 1; }
			rm -rf "$tmp/$n.trace" "$tmp/export_uftrace.json"
			line+=$(printf ' %s %.3f' "${n#*_}" "$(tail -n 1 "$tmp/$n.t")")
		done
		echo "$line" >&2
	done
}

# net_pair TOOL: ns per fib call pair of TOOL above the stubs, fixed costs (fib(1) runs) taken off
net_pair() {
	local t=$1 m m1 b b1
	m=$(med "fib_$t") m1=$(med "fib1_$t") b=$(med fib_stubs) b1=$(med fib1_stubs)
	if [[ $m == - || $m1 == - || $b == - || $b1 == - ]]; then
		echo -
		return
	fi
	awk -v m="$m" -v m1="$m1" -v b="$b" -v b1="$b1" -v p="$fib_pairs" \
		'BEGIN { printf "%.2f\n", ((m - m1) - (b - b1)) / (p - 2) * 1e9 }'
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { if ((ok[$1])); then median "$tmp/$1.t"; else echo -; fi; }
med_rss() { if ((ok[$1])); then median "$tmp/$1.rss"; else echo -; fi; }
med_cpu() { if ((ok[$1])); then median "$tmp/$1.cpu"; else echo -; fi; }

# bytes per event of the traces kept (every stream file / every event), before any timing
stream_bytes=-
if ((ok[fib_perfscope])); then
	stream_bytes=$(find "$tmp/fib_perfscope.keep" -name 'stream.*' -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
fi
uftrace_bytes=-
if ((ok[fib_uftrace])); then
	uftrace_bytes=$(find "$tmp/fib_uftrace.keep" -name '*.dat' ! -name 'perf-cpu*' -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
fi
# chunks of the fib trace: "compressed/all" (docs/format.md "Compressed chunks")
zchunks=-
if ((ok[fib_perfscope])) && command -v python3 >/dev/null; then
	zchunks=$(python3 - "$tmp"/fib_perfscope.keep/stream.* <<'PY'
import struct, sys
z = n = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        at = struct.unpack("<I", f.read(16)[12:16])[0]
        while True:
            f.seek(at)
            h = f.read(16)
            if len(h) < 16:
                break
            magic, size, _ = struct.unpack("<IIQ", h)
            n += 1
            z += magic == 0x5A435350
            at += 16 + size
print("%d/%d" % (z, n))
PY
)
fi

# busy CPU seconds of the machine / of this shell and its children so far
machine_cpu() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat; }
own_cpu() { # own_cpu FILE: the output of bash's times (run in this shell, not a subshell)
	awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } } END { printf "%.2f\n", s }' "$1"
}
times >"$tmp/times.0"
mach0=$(machine_cpu) own0=$(own_cpu "$tmp/times.0") wall0=$(date +%s.%N)
rounds fib fib_plain fib_stubs fib_bare fib_perfscope fib_uftrace fib1_stubs fib1_bare \
	fib1_perfscope fib1_uftrace
rounds gauss_jordan gj_plain gj_stubs gj_bare gj_perfscope gj_uftrace
rounds report report_perfscope report_uftrace
rounds export export_perfscope export_uftrace

times >"$tmp/times.1"
mach1=$(machine_cpu) own1=$(own_cpu "$tmp/times.1") wall1=$(date +%s.%N)
others=$(awk -v m0="$mach0" -v m1="$mach1" -v o0="$own0" -v o1="$own1" -v w0="$wall0" -v w1="$wall1" \
	'BEGIN { o = (m1 - m0) - (o1 - o0); if (o < 0) o = 0; printf "%.1f %.0f %.1f\n", o, w1 - w0, 100 * o / (w1 - w0) }')

# ---- table
# ns/pair = (median - median of the stubs run) / pairs; net (fib only) also subtracts each
# command's fixed cost, its fib(1) run minus the stubs' fib(1) run: start-up, buffers, exit
echo
echo "run_trace: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $([[ ${#pin[@]} -gt 0 ]] && echo "pinned to CPU $cpu" || echo "not pinned"), traces in $OUT_BASE, $reps runs each, medians"
read -r o_s w_s o_pct <<<"$others"
echo "other processes used $o_s CPU-seconds during the $w_s s of timed runs ($o_pct % of one CPU)"
awk -v p="$o_pct" 'BEGIN { exit !(p > 5) }' &&
	echo "WARNING: the machine was busy with other work: the times are not reliable"
echo "fib($fib_n): $fib_pairs call pairs (fib and main); gauss_jordan $gj_n: $gj_pairs call pairs"
printf '%-18s %10s %10s %10s %8s %9s %9s %9s\n' command "median s" "min s" "max s" "CPU s" "RSS MiB" "ns/pair" "net ns"
for n in fib_plain fib_stubs fib_bare fib_perfscope fib_uftrace fib1_stubs fib1_bare \
	fib1_perfscope fib1_uftrace gj_plain gj_stubs gj_bare gj_perfscope gj_uftrace \
	report_perfscope report_uftrace export_perfscope export_uftrace; do
	if ! ((ok[$n])); then
		printf '%-18s %10s %10s %10s %8s %9s %9s %9s\n' "$n" - - - - - - -
		continue
	fi
	base=- pairs=0 net=-
	case $n in
	fib_stubs | fib_plain) ;;
	fib_*)
		base=$(med fib_stubs) pairs=$fib_pairs
		net=$(net_pair "${n#fib_}")
		;;
	gj_stubs | gj_plain) ;;
	gj_*) base=$(med gj_stubs) pairs=$gj_pairs ;;
	esac
	awk -v n="$n" -v m="$(med "$n")" -v lo="$(sort -g "$tmp/$n.t" | head -1)" \
		-v hi="$(sort -g "$tmp/$n.t" | tail -1)" -v rss="$(med_rss "$n")" -v cpu="$(med_cpu "$n")" -v base="$base" \
		-v pairs="$pairs" -v net="$net" 'BEGIN {
		ns = base == "-" ? "-" : sprintf("%.2f", (m - base) / pairs * 1e9)
		printf "%-18s %10.4f %10.4f %10.4f %8.2f %9.1f %9s %9s\n", n, m, lo, hi, cpu, rss / 1024, ns, net }'
done

# ---- targets
echo
printf '%-46s %12s %10s %6s\n' target value goal met
# target NAME VALUE OP GOAL: one line of the targets table (VALUE - when not measured)
target() {
	awk -v name="$1" -v v="$2" -v op="$3" -v g="$4" 'BEGIN {
		if (v == "-" || v == "") { printf "%-46s %12s %10s %6s\n", name, "-", op " " g, "n/a"; exit }
		met = op == "<=" ? v + 0 <= g + 0 : v + 0 >= g + 0
		printf "%-46s %12s %10s %6s\n", name, v, op " " g, met ? "yes" : "NO" }'
}
# ratio A B SCALE: A / B with 3 decimals (or -), A and B numbers or -
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3f\n", a / b }'; }
per_pair() { # per_pair NAME BASE PAIRS: ns per pair above BASE
	if [[ $(med "$1") == - || $(med "$2") == - ]]; then echo -; return; fi
	awk -v m="$(med "$1")" -v b="$(med "$2")" -v p="$3" 'BEGIN { printf "%.3f\n", (m - b) / p * 1e9 }'
}
ns_psc=$(per_pair fib_perfscope fib_stubs "$fib_pairs")
ns_bare=$(per_pair fib_bare fib_stubs "$fib_pairs")
ns_uft=$(per_pair fib_uftrace fib_stubs "$fib_pairs")
r_bare=$(ratio "$ns_psc" "$ns_bare")
r_uft=$(ratio "$ns_psc" "$ns_uft")
net_psc=$(net_pair perfscope)
net_bare=$(net_pair bare)
net_uft=$(net_pair uftrace)
# slowdown TOOL: gauss_jordan's time with TOOL over its time with the stubs, in % (or -)
slowdown() {
	if [[ ${ok[gj_$1]} != 1 || ${ok[gj_stubs]} != 1 ]]; then
		echo -
		return
	fi
	awk -v a="$(med "gj_$1")" -v b="$(med gj_stubs)" 'BEGIN { printf "%.2f\n", (a / b - 1) * 100 }'
}
gj_slow=$(slowdown perfscope)
bpe=$(awk -v s="$stream_bytes" -v p="$fib_pairs" 'BEGIN { if (s == "-") print "-"; else printf "%.4f\n", s / (2 * p) }')
ubpe=$(awk -v s="$uftrace_bytes" -v p="$fib_pairs" 'BEGIN { if (s == "-") print "-"; else printf "%.4f\n", s / (2 * p) }')
r_report=$(ratio "$(med report_uftrace)" "$(med report_perfscope)")
rss_report=$(awk -v k="$(med_rss report_perfscope)" 'BEGIN { if (k == "-") print "-"; else printf "%.1f\n", k / 1024 }')
r_export=$(ratio "$(med export_uftrace)" "$(med export_perfscope)")
target "fib: perfscope/bare, ns per call pair" "$r_bare" "<=" 1.3
target "fib: perfscope/uftrace, ns per call pair" "$r_uft" "<=" 0.3
target "gauss_jordan: perfscope/stubs slowdown, %" "$gj_slow" "<=" 3
target "stream bytes per event (fib trace)" "$bpe" "<=" 16
target "report: uftrace report / perfscope report time" "$r_report" ">=" 5
target "report: perfscope report peak RSS, MiB" "$rss_report" "<=" 64
target "export: uftrace dump --chrome / perfscope time" "$r_export" ">=" 5
echo "ns per call pair: bare $ns_bare, perfscope $ns_psc, uftrace $ns_uft; without fixed costs: bare" \
	"$net_bare, perfscope $net_psc, uftrace $net_uft (ratios perfscope/bare $(ratio "$net_psc" "$net_bare")," \
	"perfscope/uftrace $(ratio "$net_psc" "$net_uft"))"
echo "gauss_jordan slowdown over the stubs, %: bare $(slowdown bare), perfscope $gj_slow, uftrace $(slowdown uftrace)"
echo "uftrace bytes per event: $ubpe"
echo "fib trace chunks compressed: $zchunks (PERFSCOPE_COMPRESS=${PERFSCOPE_COMPRESS:-auto})"
echo "RESULT ns_bare=$ns_bare ns_perfscope=$ns_psc ns_uftrace=$ns_uft ratio_bare=$r_bare ratio_uftrace=$r_uft" \
	"gj_slowdown_pct=$gj_slow bytes_per_event=$bpe report_speedup=$r_report report_rss_mib=$rss_report" \
	"export_speedup=$r_export net_bare=$net_bare net_perfscope=$net_psc net_uftrace=$net_uft"

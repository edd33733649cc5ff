#!/usr/bin/env bash
# Sampling an unmodified program with two phases of known length (phases: ~0.6 s of CPU time
# in phase_a, then as much work in phase_b, printing the CLOCK_MONOTONIC time of the switch):
# in the timeline, with intervals of a 12th of the shorter phase's wall time (50 ms on an idle
# machine; a loaded one stretches the phases, each by its own share of the CPUs, so every
# phase keeps 12 intervals of about 50 samples),
# every interval inside a phase has >= 90 % of its phase_a + phase_b samples in that phase's
# function and more than half of all its samples there (on a loaded machine the scheduler's
# [kernel] samples take a real share of an interval), and the first interval where phase_b
# dominates is within two intervals of the switch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

d=$T/ph.exp
record_or_die rec "$d" --sample=1000 -- "$EX/phases"
sw=$(sed -n 's/^switch_ns=//p' "$T/rec.out")
[ -n "$sw" ] || die "phases printed no switch time"
expect_grep "samples" "$T/rec.err" "record says how many samples it took"

ms=$(json_eval "$d/meta.json" "max(1, min($sw - d['start_ns'], d['end_ns'] - $sw) // 12000000)")
run tl "$PERFSCOPE" timeline "$d" --interval "${ms}ms" --json
expect_eq 0 "$RC" "timeline --json exits 0"
json_ok "$T/tl.out" || die "timeline --json is not JSON"

# every interval by the phase it lies in: A, B, the switch (S) or the edges (E)
python3 - "$T/tl.out" "$sw" >"$T/phases.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sw = int(sys.argv[2]) - d["start_ns"]
step = d["interval_ns"]
fa, fb = d["functions"].index("phase_a"), d["functions"].index("phase_b")
first_b = None
for i, iv in enumerate(d["intervals"]):
    a = sum(t["function_samples"][fa] for t in iv["threads"])
    b = sum(t["function_samples"][fb] for t in iv["threads"])
    n = sum(t["samples"] for t in iv["threads"])
    lo, hi = iv["t_start_ns"], iv["t_end_ns"]
    if first_b is None and n and b > n / 2:
        first_b = i
    # whole intervals inside a phase, not the first (process start) nor the partial last one
    if i == 0 or hi - lo < step or n < 10:
        kind = "E"
    elif hi <= sw:
        kind = "A"
    elif lo >= sw:
        kind = "B"
    else:
        kind = "S"
    print(kind, i, n, a, b)
print("switch", sw // step, first_b)
PY
inside_a=$(awk '$1 == "A"' "$T/phases.txt" | wc -l)
inside_b=$(awk '$1 == "B"' "$T/phases.txt" | wc -l)
expect_cmp "$inside_a" ">=" 8 "whole $ms ms intervals inside phase A"
expect_cmp "$inside_b" ">=" 8 "whole $ms ms intervals inside phase B"
bad_a=$(awk '$1 == "A" && ($4 < 0.9 * ($4 + $5) || $4 <= $3 / 2) {print $2}' "$T/phases.txt" | tr '\n' ' ')
bad_b=$(awk '$1 == "B" && ($5 < 0.9 * ($4 + $5) || $5 <= $3 / 2) {print $2}' "$T/phases.txt" | tr '\n' ' ')
expect_eq "" "$bad_a" "intervals of phase A with < 90 % of the phase samples or <= half of all in phase_a"
expect_eq "" "$bad_b" "intervals of phase B with < 90 % of the phase samples or <= half of all in phase_b"
read -r _ at first_b < <(grep '^switch' "$T/phases.txt")
[ "$first_b" != None ] || die "no interval where phase_b dominates"
off=$((first_b - at))
expect_cmp "${off#-}" "<=" 2 "phase boundary placed within two intervals (switch in $at, found $first_b)"

# the same timeline as CSV: header, one row per interval, thread and event
run csv "$PERFSCOPE" timeline "$d" --interval "${ms}ms" --csv
expect_eq "t_start_ns,t_end_ns,thread,event,value,rate_per_s" "$(csv_header "$T/csv.out")" "timeline CSV header"
# (threads: the program's, and in sanitizer builds LeakSanitizer's helper at exit)
cells=$(json_eval "$T/tl.out" 'len(d["intervals"]) * len(d["threads"]) * len(d["events"])')
nrows=$(awk 'NR > 1 && /^$/ {exit} NR > 1' "$T/csv.out" | wc -l)
expect_eq "$cells" "$nrows" "one CSV row per interval, thread and event"
expect_grep 't_start_ns,t_end_ns,thread,function,samples,share' "$T/csv.out" "function share table"
# the shares are in % as in report's CSV: a mid-phase interval has phase_a above half (50, not 0.5)
top_share=$(awk -F, '/^t_start_ns,t_end_ns,thread,function/ {t = 1; next} t && $4 == "phase_a" && $6 > m {m = $6} END {print m + 0}' "$T/csv.out")
expect_cmp "$top_share" ">=" 50 "timeline CSV share of phase_a in its best interval, in %"
expect_cmp "$top_share" "<=" 100 "timeline CSV share is at most 100 %"

# the report names both phases, with about half of the samples each
report_csv_or_die rep "$d"
for f in phase_a phase_b; do
	share=$(csv_get "$T/rep.out" share name=$f)
	expect_cmp "$share" ">=" 40 "$f share of the samples in %"
	expect_cmp "$share" "<=" 60 "$f share of the samples in %"
	expect_eq phases.c "$(basename "$(csv_get "$T/rep.out" file name=$f)")" "$f source file"
done
finish

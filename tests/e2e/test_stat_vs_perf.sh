#!/usr/bin/env bash
# perfscope stat against perf stat (linux-perf), exit status pass-through, repetitions, JSON.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/pagewalk
[ -x "$prog" ] || die "$prog was not built"

# --- exit status is the command's own
run st3 "$PERFSCOPE" stat -e page-faults -- sh -c 'exit 3'
expect_eq 3 "$RC" "perfscope stat -- sh -c 'exit 3': exit status"
expect_grep "status 3" "$T/st3.out" "perfscope stat says the command's exit status"
run st0 "$PERFSCOPE" stat -e page-faults -- true
expect_eq 0 "$RC" "perfscope stat -- true: exit status"
run rst3 "$PERFSCOPE" stat -e page-faults -r 2 -- sh -c 'exit 3'
expect_eq 3 "$RC" "perfscope stat -r 2 -- sh -c 'exit 3': exit status"

# --- CSV with -o: page-faults of the whole run
run csv "$PERFSCOPE" stat -e page-faults --csv -o "$T/one.csv" -- "$prog" -n 20000
expect_eq 0 "$RC" "perfscope stat --csv exit status"
expect_grep "expected page faults in region walk: 20000" "$T/csv.out" "the command's stdout still reaches stdout"
expect_eq "kind,name,value,unit,stddev,min,max,runs,running_pct,status" "$(csv_header "$T/one.csv")" "stat CSV header"
ours=$(csv_get "$T/one.csv" value kind=event name=page-faults)
expect_eq counted "$(csv_get "$T/one.csv" status kind=event name=page-faults)" "stat CSV status of page-faults"
expect_cmp "$ours" '>=' 20000 "perfscope stat: page-faults of pagewalk -n 20000 (at least the walk)"

# --- repetitions: runs=5, min <= mean <= max
run rep "$PERFSCOPE" stat -e page-faults -r 5 --csv -o "$T/r5.csv" -- "$prog" -n 2000
expect_eq 0 "$RC" "perfscope stat -r 5 exit status"
expect_eq 5 "$(csv_get "$T/r5.csv" runs kind=event name=page-faults)" "stat -r 5: runs"
v=$(csv_get "$T/r5.csv" value kind=event name=page-faults)
mn=$(csv_get "$T/r5.csv" min kind=event name=page-faults)
mx=$(csv_get "$T/r5.csv" max kind=event name=page-faults)
expect_cmp "$mn" '<=' "$v" "stat -r 5: min <= value"
expect_cmp "$v" '<=' "$mx" "stat -r 5: value <= max"
expect_cmp "$mn" '>=' 2000 "stat -r 5: every run has at least the 2000 faults of the walk"
expect_cmp "$(csv_get "$T/r5.csv" stddev kind=event name=page-faults)" '>=' 0 "stat -r 5: stddev"
expect_eq 5 "$(csv_get "$T/r5.csv" runs kind=time name=wall)" "stat -r 5: runs of wall time"

# --- JSON: parses, has the events (on stdout for a quiet command, and with -o)
run json "$PERFSCOPE" stat -e page-faults,task-clock --json -- true
expect_eq 0 "$RC" "perfscope stat --json -- true exit status"
expect_eq true "$(json_eval "$T/json.out" 'True')" "perfscope stat --json on stdout parses"
run jsono "$PERFSCOPE" stat -e page-faults,task-clock --json -o "$T/s.json" -- "$prog" -n 3000
expect_eq 0 "$RC" "perfscope stat --json -o exit status"
expect_eq true "$(json_eval "$T/s.json" 'True')" "perfscope stat --json -o FILE parses"
expect_eq "page-faults,task-clock" "$(json_eval "$T/s.json" '",".join(e["name"] for e in d["events"])')" "stat JSON events"
expect_eq true "$(json_eval "$T/s.json" 'all(e["counted"] for e in d["events"])')" "stat JSON: both events counted"
pf=$(json_eval "$T/s.json" '[e for e in d["events"] if e["name"] == "page-faults"][0]["value"]["mean"]')
expect_cmp "$pf" '>=' 3000 "stat JSON: page-faults of pagewalk -n 3000"
expect_eq 1 "$(json_eval "$T/s.json" 'd["runs"]')" "stat JSON runs"
expect_eq 0 "$(json_eval "$T/s.json" 'd["exit_status"]')" "stat JSON exit_status"

# --- against perf stat
if ! command -v perf >/dev/null 2>&1; then
	skip "perf (linux-perf) is not installed: the comparison with perf stat was not made (other checks passed)"
fi
run perf perf stat -x, -e page-faults -- "$prog" -n 20000
if [ "$RC" -ne 0 ]; then
	skip "perf stat does not work here (exit $RC: $(head -c 300 "$T/perf.err")); no comparison made"
fi
theirs=$(awk -F, '$3 == "page-faults" { print $1; exit }' "$T/perf.err")
case "$theirs" in
'' | *[!0-9]*) skip "perf stat gave no page-faults count ('$theirs'); no comparison made" ;;
esac
expect_within 1 "$theirs" "$ours" "page-faults of pagewalk -n 20000: perf stat vs perfscope stat"

finish

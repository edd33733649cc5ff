#!/usr/bin/env bash
# stat --format: text, csv, json and long from one table. stat-threads-prog's threads walk-N
# touch N fresh pages each (page-faults known in advance, up to the start-up faults
# docs/cmd-stat.md allows); the long CSV holds the CSV's cells, one line per number.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

START=8 # documented start-up faults of a thread
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build the test program"
"$cc" -O1 -pthread "$PSC_SOURCE/tests/e2e/stat-threads-prog.c" -o "$T/stprog" >"$T/cc.log" 2>&1 ||
	die "cannot build stat-threads-prog.c: $(cat "$T/cc.log")"

# the totals: page-faults of every walk (6500 pages) in the long CSV
run long "$PERFSCOPE" stat -e page-faults,task-clock --format long -o "$T/l.csv" -- "$T/stprog" 1000 2000 3000
expect_eq 3 "$RC" "long: exit status is the command's"
f=$T/l.csv
expect_eq "kind,name,metric,value" "$(csv_header "$f")" "long: columns"
v=$(csv_get "$f" value kind=event name=page-faults metric=value)
expect_cmp "$v" '>=' 6500 "long: page-faults, at least every walk's pages"
expect_cmp "$v" '<=' 8000 "long: page-faults, the walks' pages and the start-up faults"
expect_eq 1 "$(csv_get "$f" value kind=event name=page-faults metric=runs)" "long: one run"
expect_eq 100.00 "$(csv_get "$f" value kind=event name=task-clock metric=running_pct)" \
	"long: task-clock never multiplexed"
expect_eq 1 "$(grep -c "^time,wall,value,[1-9][0-9]*$" "$f")" "long: the wall time"
expect_eq 0 "$(grep -c ',unit,\|,status,' "$f" || true)" "long: no line for a text column"

# --format csv and json are --csv and --json
run fcsv "$PERFSCOPE" stat -e page-faults --format csv -o "$T/f.csv" -- "$T/stprog" 10
expect_eq "kind,name,value,unit,stddev,min,max,runs,running_pct,status" \
	"$(csv_header "$T/f.csv")" "--format csv: the CSV's columns"
run fjson "$PERFSCOPE" stat -e page-faults --format json -o "$T/f.json" -- "$T/stprog" 10
json_ok "$T/f.json" || fail "--format json does not parse"
expect_eq page-faults "$(json_eval "$T/f.json" 'd["events"][0]["name"]')" "--format json: events"

# per thread: every thread's pages in the long CSV
run tl "$PERFSCOPE" stat --per-thread -e page-faults --format long -o "$T/t.csv" -- "$T/stprog" 1000 2000 3000
expect_eq 3 "$RC" "per-thread long: exit status is the command's"
f=$T/t.csv
expect_eq "row,pid,tid,name,event,metric,value" "$(csv_header "$f")" "per-thread long: columns"
for n in 1000 2000 3000; do
	v=$(csv_get "$f" value row=thread name=walk-$n event=page-faults metric=value)
	expect_cmp "$v" '>=' "$n" "per-thread long: walk-$n, at least its $n pages"
	expect_cmp "$v" '<=' $((n + 2 + START)) "per-thread long: walk-$n, its pages + 2 + $START"
done
total=$(csv_get "$f" value row=total event=page-faults metric=value)
unattr=$(csv_get "$f" value row=unattributed event=page-faults metric=value)
sum=$(awk -F, '$1 == "thread" && $6 == "value" { s += $7 } END { print s }' "$f")
expect_eq "$total" "$((sum + unattr))" "per-thread long: threads' sum + unattributed = total"

# refusals
run both "$PERFSCOPE" stat --csv --format long -- true
expect_eq 2 "$RC" "--csv with --format: usage error"
expect_grep "exclude each other" "$T/both.err" "--csv with --format: why"
run bad "$PERFSCOPE" stat --format xml -- true
expect_eq 2 "$RC" "--format xml: usage error"
expect_grep "expected text, csv, json or long" "$T/bad.err" "--format xml: why"
finish

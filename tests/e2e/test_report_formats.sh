#!/usr/bin/env bash
# perfscope report's machine formats: stable CSV columns (events in the order given, then the
# metric group's formulas), JSON that parses, consistent times; and counts that stay exact when
# several events are recorded together.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/threads
walk=$EX/pagewalk
[ -x "$prog" ] && [ -x "$walk" ] || die "the examples were not built"

# check_times CSV WHAT: every row has incl_ns >= excl_ns >= 0
check_times() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	local bad
	bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		!($(c["incl_ns"]) + 0 >= $(c["excl_ns"]) + 0 && $(c["excl_ns"]) + 0 >= 0 && $(c["excl_ns"]) != "") { print }' "$1")
	[ -z "$bad" ] || fail "$2: rows without incl_ns >= excl_ns >= 0: $bad"
}

# --- -e page-faults,task-clock: exact header, columns in the order given
d=$T/two
record_or_die rec-two "$d" -e page-faults,task-clock -- "$prog"
report_csv_or_die csv-two "$d"
expect_eq "name,thread,calls,incl_ns,excl_ns,mean_ns,min_ns,max_ns,page-faults,task-clock" "$(csv_header "$T/csv-two.out")" \
	"report --csv header for -e page-faults,task-clock"
check_times "$T/csv-two.out" "report --csv (-e page-faults,task-clock)"
expect_eq 5 "$(wc -l <"$T/csv-two.out" | tr -d ' ')" "report --csv: header and 4 regions"
report_csv_or_die csv-two-t "$d" --by thread
expect_eq "name,thread,calls,incl_ns,excl_ns,mean_ns,min_ns,max_ns,page-faults,task-clock" "$(csv_header "$T/csv-two-t.out")" \
	"report --csv --by thread header"
check_times "$T/csv-two-t.out" "report --csv --by thread"

run json-two "$PERFSCOPE" report "$d" --json
expect_eq 0 "$RC" "report --json exit status"
j=$T/json-two.out
json_ok "$j" || die "report --json does not parse: $(head -c 500 "$j")"
expect_eq "page-faults,task-clock" "$(json_eval "$j" '",".join(d["events"])')" "report --json events"
expect_eq "inner,main-work,outer,thread-work" "$(json_eval "$j" '",".join(sorted(r["name"] for r in d["regions"]))')" \
	"report --json regions"
expect_eq true "$(json_eval "$j" 'all(r["incl_ns"] >= r["excl_ns"] >= 0 for r in d["regions"])')" \
	"report --json: incl_ns >= excl_ns >= 0 in every region"
expect_eq 10 "$(json_eval "$j" '[r["calls"] for r in d["regions"] if r["name"] == "inner"][0]')" "report --json: calls of inner"
expect_eq true "$(json_eval "$j" 'isinstance(d["caveats"], list)')" "report --json: caveats list"

# the counts stay exact with two events: page-faults as in a page-faults-only run, and
# task-clock present (a region that ran has a non-zero task-clock)
csv=$T/csv-two.out
expect_near 3000 "$(csv_get "$csv" page-faults name=thread-work)" 2 "-e page-faults,task-clock: page-faults of thread-work"
expect_near 1000 "$(csv_get "$csv" page-faults name=main-work)" 2 "-e page-faults,task-clock: page-faults of main-work"
expect_near 1000 "$(csv_get "$csv" page-faults name=outer)" 2 "-e page-faults,task-clock: page-faults of outer"
for r in thread-work main-work outer inner; do
	expect_cmp "$(csv_get "$csv" task-clock name=$r)" '>' 0 "-e page-faults,task-clock: task-clock of $r"
done

# --- -g sw: the group's events, then its metrics, as columns
d=$T/sw
record_or_die rec-sw "$d" -g sw -- "$prog"
report_csv_or_die csv-sw "$d"
run lj "$PERFSCOPE" list --json
events=$(json_eval "$T/lj.out" '",".join([g for g in d["metric_groups"] if g["name"] == "sw"][0]["events"])')
metrics=$(json_eval "$T/lj.out" '",".join(m["name"] for m in [g for g in d["metric_groups"] if g["name"] == "sw"][0]["metrics"])')
[ -n "$events" ] && [ -n "$metrics" ] || die "perfscope list --json does not describe group sw"
expect_eq "name,thread,calls,incl_ns,excl_ns,mean_ns,min_ns,max_ns,$events,$metrics" "$(csv_header "$T/csv-sw.out")" \
	"report --csv header for -g sw: events, then metrics"
check_times "$T/csv-sw.out" "report --csv (-g sw)"
csv=$T/csv-sw.out
expect_near 3000 "$(csv_get "$csv" page-faults name=thread-work)" 2 "-g sw: page-faults of thread-work"
expect_near 1000 "$(csv_get "$csv" page-faults name=main-work)" 2 "-g sw: page-faults of main-work"
expect_near 1000 "$(csv_get "$csv" page-faults name=inner)" 2 "-g sw: page-faults of inner"
for r in thread-work main-work outer inner; do
	expect_cmp "$(csv_get "$csv" task-clock name=$r)" '>' 0 "-g sw: task-clock of $r"
done
run json-sw "$PERFSCOPE" report "$d" --json
expect_eq true "$(json_eval "$T/json-sw.out" 'True')" "report --json (-g sw) parses"
expect_eq "$metrics" "$(json_eval "$T/json-sw.out" '",".join([r for r in d["regions"] if r["name"] == "outer"][0]["metrics"].keys())')" \
	"report --json (-g sw): metrics of outer"

# --- a region walked on one CPU: two events read together, both right (pinned so that the
# result does not depend on where the scheduler puts the thread)
pin=()
if command -v taskset >/dev/null 2>&1; then
	pin=(taskset -c 0)
fi
for evs in page-faults,task-clock task-clock,page-faults; do
	d=$T/pin-$evs
	record_or_die rec-$evs "$d" -e "$evs" -- "${pin[@]}" "$walk" -n 2000 -r 2
	report_csv_or_die csv-$evs "$d"
	expect_near 4000 "$(csv_get "$T/csv-$evs.out" page-faults name=walk)" 2 "-e $evs: page-faults of walk"
	expect_cmp "$(csv_get "$T/csv-$evs.out" task-clock name=walk)" '>' 0 "-e $evs: task-clock of walk"
done

# --- --sort name --top 2
report_csv_or_die top "$T/two" --sort name --top 2
expect_eq "inner,main-work" "$(awk -F, 'NR > 1 { printf "%s%s", s, $1; s = "," }' "$T/top.out")" \
	"report --sort name --top 2"
report_csv_or_die calls "$T/two" --sort calls --top 1
expect_eq inner "$(awk -F, 'NR == 2 { print $1 }' "$T/calls.out")" "report --sort calls --top 1"

finish

#!/usr/bin/env bash
# The Profile view of a traced run with call counts known in advance (examples/calls: main 1,
# leaf 1000, rec 11, worker 2, work 1000 over two threads): the report's own test checks every
# cell of the functions table (merged and per thread), the sort and the filter in Chromium;
# here the table's text is checked against the counts and against `perfscope report --csv`,
# a run with regions shows both tables, and one recorded with -e page-faults,task-clock has
# their columns with report --csv's counts.
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"

# report_data HTML: the report's JSON data
report_data() {
	python3 -c 'import re,sys; t=open(sys.argv[1]).read(); print(re.search(r"<script type=\"application/json\" id=\"psc-data\">(.*?)</script>", t, re.S).group(1))' "$1"
}

d=$T/calls.exp
record_or_die rec "$d" --functions -- "$EX/calls"
run html "$PERFSCOPE" html "$d"
expect_eq 0 "$RC" "html"
html_render "$d/report.html" profile profile
html_expect_ok profile
expect_eq 1 "$(html_dom profile --views | grep -c '^profile$')" "the Profile view is shown"
expect_eq 0 "$(html_dom profile --views | { grep -c -e '^energy$' -e '^counters$' || true; })" \
	"no Energy or Counters view without power or samples"
html_dom profile --table profile-functions >"$T/functions.csv"
header=$(csv_header "$T/functions.csv")
# calls runs in 3 threads: the load imbalance column (report's imbalance_pct) is there
expect_eq "function,thread,calls,inclusive,exclusive,% excl,mean,min,max,imbalance,source" "${header// ▼/}" \
	"functions table columns (sorted by exclusive time)"
for fc in main:1 leaf:1,000 rec:11 worker:2 work:1,000; do
	expect_eq "${fc#*:}" "$(csv_get "$T/functions.csv" calls function="${fc%:*}")" "calls of ${fc%:*}"
	expect_eq all "$(csv_get "$T/functions.csv" thread function="${fc%:*}")" "${fc%:*} merged over threads"
done
expect_eq 5 "$(($(wc -l <"$T/functions.csv") - 1))" "one row per function"
expect_eq "calls.c:$(grep -n '^int main' "$PSC_SOURCE/examples/calls.c" | cut -d: -f1)" \
	"$(csv_get "$T/functions.csv" source function=main)" "main's source line"

# the same numbers as perfscope report, per thread too
report_data "$d/report.html" >"$T/data.json"
report_csv_or_die rep "$d"
for f in main leaf rec worker work; do
	expect_eq "$(csv_get "$T/rep.out" excl_ns name=$f)" \
		"$(json_eval "$T/data.json" "[r['excl_ns'] for r in d['profile']['functions'] if r['name']=='$f'][0]")" \
		"exclusive time of $f as report --csv"
done
for f in main worker work; do
	expect_near "$(csv_get "$T/rep.out" imbalance_pct name=$f)" \
		"$(json_eval "$T/data.json" "[r['imbalance_pct'] for r in d['profile']['functions'] if r['name']=='$f'][0]")" \
		0.001 "load imbalance of $f as report --csv"
done
expect_eq 2 "$(json_eval "$T/data.json" "len([r for r in d['profile']['functions_by_thread'] if r['name']=='work'])")" \
	"work runs in two threads (per-thread rows)"
expect_eq 1000 "$(json_eval "$T/data.json" "sum(r['calls'] for r in d['profile']['functions_by_thread'] if r['name']=='work')")" \
	"work's calls per thread add up"

# regions and functions in one run: both tables, the regions' calls as recorded
cat >"$T/regions.c" <<'C'
#include <perfscope.h>
static char buf[7 * 64 * 4096]; /* outer touches 64 new pages a call: page faults in outer */
static int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 7; i++) {
		psc_region_begin("outer");
		for (int k = 0; k < 64; k++)
			((volatile char *)buf)[(i * 64 + k) * 4096] = 1;
		for (int j = 0; j < 3; j++) {
			psc_region_begin("inner");
			s += work(1000);
			psc_region_end("inner");
		}
		psc_region_end("outer");
	}
	return s == 42;
}
C
gcc -O1 -g -finstrument-functions -I"$PSC_SOURCE/include" "$T/regions.c" -o "$T/regions" \
	-L"$PSC_BUILD" -lperfscope -Wl,-rpath,"$PSC_BUILD" || die "cannot build the regions program"
record_or_die rec2 "$T/reg.exp" --functions -- "$T/regions"
run html2 "$PERFSCOPE" html "$T/reg.exp"
expect_eq 0 "$RC" "html of a run with regions"
html_render "$T/reg.exp/report.html" regions profile
html_expect_ok regions
html_dom regions --table profile-table >"$T/regions.csv"
expect_eq 7 "$(csv_get "$T/regions.csv" calls region=outer)" "outer region's calls"
expect_eq 21 "$(csv_get "$T/regions.csv" calls region=inner)" "inner region's calls"
html_dom regions --table profile-functions >"$T/rf.csv"
expect_eq 21 "$(csv_get "$T/rf.csv" calls function=work)" "work's calls next to the regions"
# counters: the same program with -e page-faults,task-clock; the view's own test checks every
# counter cell against the data, and outer's page-faults cell is report --csv's count
record_or_die rec4 "$T/ctr.exp" --functions -e page-faults,task-clock -- "$T/regions"
run html4 "$PERFSCOPE" html "$T/ctr.exp"
expect_eq 0 "$RC" "html of a run with counters"
report_csv_or_die repctr "$T/ctr.exp" --by region
html_render "$T/ctr.exp/report.html" counters profile
html_expect_ok counters
html_dom counters --table profile-table >"$T/ctr.csv"
header=$(csv_header "$T/ctr.csv")
expect_eq "region,thread,calls,inclusive,exclusive,min,max,page-faults,task-clock" "${header// ▼/}" \
	"regions table columns with two counters"
pf=$(csv_get "$T/repctr.out" page-faults name=outer)
expect_cmp "${pf:-0}" ">=" 64 "outer's page faults in report --csv (64 new pages a call)"
expect_eq "$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$pf")" "$(csv_get "$T/ctr.csv" page-faults region=outer)" \
	"outer's page-faults cell as report --csv"
expect_eq "$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$(csv_get "$T/repctr.out" task-clock name=inner)")" \
	"$(csv_get "$T/ctr.csv" task-clock region=inner)" "inner's task-clock cell as report --csv"
# sampled call chains: the Profile's sampled table gets report's "children" share, and the
# functions seen only as callers (main, a, b: self share about 0) carry it
record_or_die rec3 "$T/cc.exp" --sample=1000 --callgraph -- "$EX/callchain" -a 100 -b 100
run html3 "$PERFSCOPE" html "$T/cc.exp"
expect_eq 0 "$RC" "html of a sampled run with call chains"
run rcc "$PERFSCOPE" report "$T/cc.exp" --json
expect_eq 0 "$RC" "report --json of the call chains"
html_render "$T/cc.exp/report.html" chains profile
html_expect_ok chains
html_dom chains --table profile-samples >"$T/cc.csv"
for f in main a b; do
	# report's share (a double, as JSON keeps it) rounded as the page's toFixed rounds: the
	# nearest of the exact value, a tie upwards (printf rounds an exact tie to even: 96.25 gave
	# 96.2 where the page shows 96.3)
	want=$(python3 -c '
import decimal, json, sys
r = [x for x in json.load(open(sys.argv[1]))["functions"] if x["name"] == sys.argv[2]][0]
v = r["incl_share"]
q = decimal.Decimal("0.1" if v >= 10 else "0.01")
print(decimal.Decimal(v).quantize(q, rounding=decimal.ROUND_HALF_UP), "%")' "$T/rcc.out" "$f")
	expect_eq "$want" "$(csv_get "$T/cc.csv" children function=$f)" \
		"children share of $f as report gives it"
done
finish

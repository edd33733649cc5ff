#!/usr/bin/env bash
# The Counters over time view of a sampled two-phase run (examples/phases: ~0.6 s in phase_a,
# then ~0.6 s in phase_b, printing the CLOCK_MONOTONIC time of the switch): the report's own
# test checks in Chromium that each event's line holds its rate per interval, the stacked
# areas the sample shares, the run's start marker is drawn; here the data: about 100
# intervals, the same intervals and counts as `perfscope timeline`, every whole interval of
# phase A has >= 90 % of its phase samples in phase_a (B likewise), the phases dominate
# overall, and the sampled functions appear in the Profile.
# A region in a hot loop (5000 begins and ends) is at most 1000 markers, the others counted
# and named in a caveat, and the legend lists each region name once: the page still opens.
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"

report_data() {
	python3 -c 'import re,sys; t=open(sys.argv[1]).read(); print(re.search(r"<script type=\"application/json\" id=\"psc-data\">(.*?)</script>", t, re.S).group(1))' "$1"
}

d=$T/ph.exp
record_or_die rec "$d" --sample=1000 -- "$EX/phases"
sw=$(sed -n 's/^switch_ns=//p' "$T/rec.out")
[ -n "$sw" ] || die "phases printed no switch time"
run html "$PERFSCOPE" html "$d"
expect_eq 0 "$RC" "html"
html_render "$d/report.html" counters counters
html_expect_ok counters
expect_eq 1 "$(html_dom counters --views | grep -c '^counters$')" "the Counters view is shown"
report_data "$d/report.html" >"$T/data.json"

# the timeline of perfscope timeline with its default interval
run tl "$PERFSCOPE" timeline "$d" --json
expect_eq 0 "$RC" "timeline --json"
python3 - "$T/data.json" "$T/tl.out" "$sw" >"$T/check.txt" <<'PY' || fail "the counters data: $(cat "$T/check.txt")"
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
tl = json.load(open(sys.argv[2]))
sw = int(sys.argv[3]) - tl["start_ns"]
n = len(c["t_ns"]) - 1
print("intervals", n, "of", c["interval_ns"])
assert 50 <= n <= 260, n
assert c["interval_ns"] == tl["interval_ns"] and n == len(tl["intervals"]), (c["interval_ns"], tl["interval_ns"])
assert c["end_ns"] == tl["end_ns"] - tl["start_ns"]
for i, iv in enumerate(tl["intervals"]):
    assert c["t_ns"][i] == iv["t_start_ns"], i
    assert c["samples"][i] == sum(t["samples"] for t in iv["threads"]), i
fa, fb = c["functions"].index("phase_a"), c["functions"].index("phase_b")
A = B = 0
tot = {"A": [0, 0, 0], "B": [0, 0, 0]}
for i in range(1, n - 1):
    lo, hi = c["t_ns"][i], c["t_ns"][i + 1]
    a, b, m = c["fsamples"][fa][i], c["fsamples"][fb][i], c["samples"][i]
    kind = "A" if hi <= sw else "B" if lo >= sw else None
    if not kind:
        continue
    tot[kind] = [tot[kind][0] + a, tot[kind][1] + b, tot[kind][2] + m]
    own, other = (a, b) if kind == "A" else (b, a)
    assert own >= 0.9 * (own + other), (kind, i, a, b, m)
print(tot)
assert tot["A"][0] > tot["A"][2] / 2 and tot["B"][1] > tot["B"][2] / 2, tot
assert tot["A"][2] > 100 and tot["B"][2] > 100, tot
kinds = [m["kind"] for m in c["markers"]]
assert "exec" in kinds and "exit" in kinds, kinds
PY

# the sampled functions in the Profile, with the samples of the data
html_render "$d/report.html" profile profile
html_expect_ok profile
html_dom profile --table profile-samples >"$T/samples.csv"
for f in phase_a phase_b; do
	want=$(json_eval "$T/data.json" "'{:,}'.format(sum(r['samples'] for r in d['profile']['samples']['functions'] if r['name']=='$f'))")
	expect_eq "$want" "$(csv_get "$T/samples.csv" samples function=$f)" "samples of $f in the Profile"
done
# a region in a hot loop: the markers are capped, the legend names each region once
cat >"$T/hot.c" <<'C'
#include <perfscope.h>
#include <stdio.h>

static volatile unsigned sink;

int main(void)
{
	psc_region_begin("once");
	for (int i = 0; i < 5000; i++) {
		psc_region_begin("tick");
		for (int k = 0; k < 20000; k++)
			sink = sink * 31 + (unsigned)k;
		psc_region_end("tick");
	}
	psc_region_end("once");
	printf("done\n");
	return 0;
}
C
build_c hot "$T/hot.c"
record_or_die rechot "$T/hot.exp" --sample=1000 -- "$T/hot"
run htmlhot "$PERFSCOPE" html "$T/hot.exp"
expect_eq 0 "$RC" "html of a run with 10002 region records"
html_render "$T/hot.exp/report.html" hot counters
html_expect_ok hot
expect_eq 1 "$(html_dom hot --tests | grep -c '^counters: ok')" "hot loop: the counters view's own test passed"
report_data "$T/hot.exp/report.html" >"$T/hot.json"
python3 - "$T/hot.json" >"$T/hotcheck.txt" <<'PY' || fail "the hot loop's markers: $(cat "$T/hotcheck.txt")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counters"]
m = c["markers"]
regions = [x for x in m if x["kind"] in ("begin", "end")]
process = [x for x in m if x["kind"] not in ("begin", "end")]
total = 10002 + len(process)
print(len(m), c["markers_dropped"], c["regions"])
assert len(m) == 1000, len(m)
assert c["markers_dropped"] == total - 1000, (c["markers_dropped"], total)
assert "exec" in [x["kind"] for x in process] and "exit" in [x["kind"] for x in process], process
assert [x["t_ns"] for x in m] == sorted(x["t_ns"] for x in m), "markers in time order"
# the earliest region records: once begins, then tick begin/end alternating
assert regions[0]["name"] == "once" and regions[0]["kind"] == "begin", regions[0]
assert all(x["name"] == "tick" and x["kind"] == ("begin" if i % 2 == 0 else "end")
           for i, x in enumerate(regions[1:])), "tick begins and ends in turn"
assert c["regions"] == [{"name": "once", "begins": 1, "ends": 1},
                        {"name": "tick", "begins": 5000, "ends": 5000}], c["regions"]
want = "Counters over time: 1000 of %d markers drawn" % total
assert any(x.startswith(want) and "%d later ones left out" % (total - 1000) in x
           for x in d["caveats"]), d["caveats"]
PY
expect_eq 2 "$(grep -o 'data-region="[a-z]*"' "$T/hot.dom" | sort -u | wc -l)" "the legend names the 2 regions"
expect_eq 2 "$(grep -o 'data-region="[a-z]*"' "$T/hot.dom" | wc -l)" "each region once in the legend"
finish

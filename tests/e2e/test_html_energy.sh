#!/usr/bin/env bash
# The Energy view of a traced run (phases_traced: ~0.3 s in phase_a, then ~0.3 s in
# phase_b) recorded with a power meter's file of constant 5 W, so every answer is known in
# advance: each function's energy is 5 W x its exclusive time, the functions and the time
# outside them add up to 5 W x the run, each interval's stacked energy is 5 W x its length,
# and the Profile's energy column agrees. The report's own test checks that the Chart.js
# charts hold exactly the data and the tables show it; here the data is checked against the
# known power and against `perfscope energy --csv`. Then: power covering part of the run (a
# caveat in the Summary), power without function calls (no Energy view, a caveat).
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"

report_data() {
	python3 -c 'import re,sys; t=open(sys.argv[1]).read(); print(re.search(r"<script type=\"application/json\" id=\"psc-data\">(.*?)</script>", t, re.S).group(1))' "$1"
}

# 5 W at 1 kHz for 5 s: longer than the run
python3 -c 'import sys; open(sys.argv[1], "w").write("5.0\n" * 5000)' "$T/meter.txt"
d=$T/ph.exp
record_or_die rec "$d" --functions --power "file:$T/meter.txt" --power-rate 1000 -- \
	"$EX/phases_traced" -a 300 -b 300
run html "$PERFSCOPE" html "$d"
expect_eq 0 "$RC" "html"
html_render "$d/report.html" energy energy
html_expect_ok energy
expect_eq 1 "$(html_dom energy --views | grep -c '^energy$')" "the Energy view is shown"
report_data "$d/report.html" >"$T/data.json"

python3 - "$T/data.json" 5.0 <<'PY' || fail "energy = 5 W x time"
import json, sys
d, p = json.load(open(sys.argv[1])), float(sys.argv[2])
e = d["energy"]
names = [f["name"] for f in e["functions"]]
assert "phase_a" in names and "phase_b" in names, names
for f in e["functions"]:
    want = p * f["excl_ns"] * 1e-9
    assert abs(f["excl_j"] - want) <= 1e-6 * max(want, 1e-3), (f, want)
want = p * e["run_ns"] * 1e-9
total = sum(f["excl_j"] for f in e["functions"]) + e["outside_j"]
assert abs(e["total_j"] - want) <= 1e-6 * want, (e["total_j"], want)
assert abs(total - want) <= 1e-6 * want, (total, want)
iv = e["intervals"]
assert len(iv["energy_j"]) == 40 and len(iv["edges_ns"]) == 41, len(iv["energy_j"])
for i, j in enumerate(iv["energy_j"]):
    want = p * (iv["edges_ns"][i + 1] - iv["edges_ns"][i]) * 1e-9
    stack = sum(s["j"][i] for s in iv["series"])
    assert abs(j - want) <= 1e-6 * want, (i, j, want)
    assert abs(stack - want) <= 1e-6 * want, (i, stack, want)
a = next(s for s in iv["series"] if s["name"] == "phase_a")
assert abs(sum(a["j"]) - next(f["excl_j"] for f in e["functions"] if f["name"] == "phase_a")) < 1e-9
assert [s["name"] for s in iv["series"]][-1] == "[outside traced functions]"
PY

# the same energies as perfscope energy
run en "$PERFSCOPE" energy "$d" --csv
expect_eq 0 "$RC" "perfscope energy --csv"
for f in phase_a phase_b main; do
	expect_within 0.000001 "$(csv_get "$T/en.out" energy_j name=$f)" \
		"$(json_eval "$T/data.json" "[r['excl_j'] for r in d['energy']['functions'] if r['name']=='$f'][0]")" \
		"energy of $f as perfscope energy"
done

# the tables as text: phase_a's energy and power in the Energy table and the Profile
html_dom energy --table energy-table | sed '1s/ ▼//' >"$T/energy.csv"
aj=$(json_eval "$T/data.json" "'%.3f J' % [r['excl_j'] for r in d['energy']['functions'] if r['name']=='phase_a'][0]")
expect_eq "$aj" "$(csv_get "$T/energy.csv" energy function=phase_a)" "phase_a's energy in the Energy table"
expect_eq "5.000 W" "$(csv_get "$T/energy.csv" power function=phase_a)" "phase_a's power"
html_render "$d/report.html" profile profile
html_expect_ok profile
html_dom profile --table profile-functions >"$T/profile.csv"
expect_eq "$aj" "$(csv_get "$T/profile.csv" energy function=phase_a)" "phase_a's energy in the Profile"
expect_eq "5.000 W" "$(csv_get "$T/profile.csv" power function=phase_b)" "phase_b's power in the Profile"

# power covering the first 99 ms only (100 samples at 1 kHz): the rest gets no energy, the Summary says so
cp -r "$d" "$T/part.exp"
python3 -c 'import sys; open(sys.argv[1], "w").write("5.0\n" * 100)' "$T/part.exp/power.meter"
rm -f "$T/part.exp/report.html"
run part "$PERFSCOPE" html "$T/part.exp"
expect_eq 0 "$RC" "html with power over part of the run"
html_render "$T/part.exp/report.html" part summary
html_expect_ok part
expect_grep "the power samples cover the run from 0 ns to" <(html_dom part --text summary-caveats) \
	"the Summary states the uncovered part"
report_data "$T/part.exp/report.html" >"$T/part.json"
expect_within 0.001 0.495 "$(json_eval "$T/part.json" "d['energy']['total_j']")" "5 W over 99 ms"

# power without function calls: no Energy view, a caveat says why
run rec2 "$PERFSCOPE" record -o "$T/nofunc.exp" --power "file:$T/meter.txt" --power-rate 1000 -- true
expect_eq 0 "$RC" "record power without functions"
run html3 "$PERFSCOPE" html "$T/nofunc.exp"
expect_eq 0 "$RC" "html without function calls"
html_render "$T/nofunc.exp/report.html" nofunc
html_expect_ok nofunc
expect_eq 0 "$(html_dom nofunc --views | grep -c '^energy$')" "no Energy view without function calls"
expect_grep "Energy view left out: power was recorded but no function calls" \
	<(html_dom nofunc --text summary-caveats) "the Summary says why"
finish

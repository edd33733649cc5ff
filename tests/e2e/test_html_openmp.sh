#!/usr/bin/env bash
# The OpenMP view of the HTML report, and OpenMP in the Chrome export, of examples/omp_tri at
# 2 threads (gcc's libgomp, and clang's libomp when built). The report's own test checks that
# the heat map has a row per thread and a cell per region with the row's numbers on hover and
# its colour, and a table row per region and per thread; here: the view is shown, its rows are
# the session's (report --openmp --json, never recomputed), and the Chrome export has one
# implicit-task slice per thread per region instance, named as the region, whose start and
# duration are the ITASK_BEGIN and ITASK_END records' as `perfscope dump` shows them (to the
# nanosecond; a task whose end was not recorded ends with its stream, flagged), and a wait
# slice per SYNC_ENTER/LEAVE pair, exact likewise. A run without OpenMP has no OpenMP view and
# no "openmp" data.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"

report_data() {
	python3 -c 'import re,sys; t=open(sys.argv[1]).read(); print(re.search(r"<script type=\"application/json\" id=\"psc-data\">(.*?)</script>", t, re.S).group(1))' "$1"
}

# check NAME PROG
check() {
	local name=$1 prog=$2 dir=$T/$1.exp
	OMP_NUM_THREADS=2 record_or_die "$name" "$dir" -- "$prog" 12000
	run "$name-html" "$PERFSCOPE" html "$dir"
	expect_eq 0 "$RC" "$name: html"
	html_render "$dir/report.html" "$name" openmp
	html_expect_ok "$name"
	expect_eq 1 "$(html_dom "$name" --views | grep -c '^openmp$')" "$name: the OpenMP view is shown"
	html_dom "$name" --table openmp-heat >"$T/$name-heat.csv"
	expect_eq 3 "$(wc -l <"$T/$name-heat.csv")" "$name: heat map: a header and one row per thread"
	expect_grep 'omp_tri.c:' "$T/$name-heat.csv" "$name: heat map: the regions' names"
	expect_eq "thread 0" "$(sed -n 2p "$T/$name-heat.csv" | cut -d, -f1)" "$name: heat map: thread 0's row"
	expect_eq "thread 1" "$(sed -n 3p "$T/$name-heat.csv" | cut -d, -f1)" "$name: heat map: thread 1's row"

	# the data is the session's OpenMP profile, as report --openmp --json gives it
	report_data "$dir/report.html" >"$T/$name-data.json"
	run "$name-json" "$PERFSCOPE" report "$dir" --openmp --json
	expect_eq 0 "$RC" "$name: report --openmp --json"
	python3 - "$T/$name-data.json" "$T/$name-json.out" <<'PY' || fail "$name: the view's data is report --openmp's"
import json, sys
d, r = json.load(open(sys.argv[1]))["openmp"], json.load(open(sys.argv[2]))
assert d["regions"] == r["regions"] and d["rows"] == r["rows"] and d["threads"] == r["threads"], "differ"
assert [d["regions"][i]["region"] for i in d["row_region"]] == [x["region"] for x in d["rows"]]
assert sorted({x["thread"] for x in d["rows"]}) == [0, 1], d["rows"]
PY
	html_dom "$name" --table openmp-regions >"$T/$name-regions.csv"
	expect_eq "$(json_eval "$T/$name-json.out" 'len(d["regions"]) + 1')" \
		"$(wc -l <"$T/$name-regions.csv")" "$name: a table row per region"

	# Chrome: the implicit tasks against the dump's records
	run "$name-chrome" "$PERFSCOPE" export "$dir" --format chrome -o "$T/$name.json"
	expect_eq 0 "$RC" "$name: export --format chrome"
	run "$name-dump" "$PERFSCOPE" dump "$dir"
	expect_eq 0 "$RC" "$name: dump"
	python3 - "$T/$name.json" "$T/$name-dump.out" "$T/$name-json.out" <<'PY' || fail "$name: the Chrome export's implicit tasks and waits are the dump's"
import json, re, sys
trace = json.load(open(sys.argv[1]))["traceEvents"]
regions = {x["region"] for x in json.load(open(sys.argv[3]))["regions"]}
want, tid, begins = {}, None, {}
for line in open(sys.argv[2]):
    m = re.match(r"# .*: pid (\d+) tid (\d+) ", line)
    if m:
        tid = int(m.group(2))
        continue
    f = line.split()
    if len(f) > 4 and f[3] in ("omp-itask-begin", "omp-itask-end"):
        par = int(f[4].split("=")[1])
        if f[3] == "omp-itask-begin":
            begins[(tid, par)] = int(f[2])
        else:
            b = begins.pop((tid, par))
            want[(tid, par)] = (b, int(f[2]) - b)
# a worker of libomp may end its stream in the last region's closing barrier (the runtime
# says it left only after the tool stopped): that task ends with the stream, flagged
for k, b in begins.items():
    want[k] = (b, None)
got = {}
for e in trace:
    if e.get("cat") == "openmp" and "parallel_id" in e.get("args", {}):
        key = (e["tid"], e["args"]["parallel_id"])
        assert key not in got, ("two slices", key)
        assert e["ph"] == "X" and e["name"] in regions, e
        end = e["args"].get("end_recorded", True)
        got[key] = (round(e["ts"] * 1000), round(e["dur"] * 1000) if end else None)
assert len(want) >= 4 and len({t for t, _ in want}) == 2, want
assert got == want, (got, want)

# the waits: a slice per recorded SYNC_ENTER/LEAVE pair (the innermost open wait of its kind)
names = {"barrier-implicit": "omp barrier (implicit)", "barrier-explicit": "omp barrier",
         "barrier-work": "omp barrier (worksharing)", "critical": "omp critical", "lock": "omp lock"}
want, open_, tid = [], {}, None
for line in open(sys.argv[2]):
    m = re.match(r"# .*: pid (\d+) tid (\d+) ", line)
    if m:
        tid = int(m.group(2))
        continue
    f = line.split()
    if len(f) > 4 and f[3] in ("omp-sync-enter", "omp-sync-leave"):
        kind = f[4].split("=")[1]
        if f[3] == "omp-sync-enter":
            open_.setdefault((tid, kind), []).append(int(f[2]))
        elif open_.get((tid, kind)):
            b = open_[(tid, kind)].pop()
            want.append((tid, names.get(kind, "omp " + kind), b, int(f[2]) - b))
got = [(e["tid"], e["name"], round(e["ts"] * 1000), round(e["dur"] * 1000)) for e in trace
       if e.get("cat") == "openmp" and "parallel_id" not in e.get("args", {})
       and "end_recorded" not in e.get("args", {})]
assert len(want) >= 10, want
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
PY
	# threads named by the OpenMP thread number of their implicit tasks in the dump (omp_tri
	# nests none): the Chrome export's thread names, the HTML timeline's row labels
	python3 - "$T/$name.json" "$T/$name-dump.out" "$T/$name-data.json" <<'PY' || fail "$name: threads named by their OpenMP thread number"
import json, re, sys
nums, tid = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"# .*: pid (\d+) tid (\d+) ", line)
    if m:
        tid = int(m.group(2))
        continue
    f = line.split()
    if len(f) > 5 and f[3] == "omp-itask-begin":
        nums.setdefault(tid, set()).add(int(f[5].split("=")[1]))
assert sorted(len(v) for v in nums.values()) == [1, 1], nums
want = {t: "omp thread %d" % min(v) for t, v in nums.items()}
got = {e["tid"]: e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"]
       if e.get("ph") == "M" and e.get("name") == "thread_name" and e["tid"] in want}
assert got == want, (got, want)
rows = json.load(open(sys.argv[3]))["timeline"]["rows"]
labels = {r["tid"]: r["label"] for r in rows if r["tid"] in want}
assert labels == {t: "%s \u00b7 %d" % (n, t) for t, n in want.items()}, (labels, want)
PY
}

omp_tri_progs
for p in "${PROGS[@]}"; do
	check "${p%%:*}" "${p#*:}"
done

# no OpenMP: no view, no data
record_or_die plain "$T/plain.exp" --functions -- "$EX/phases_traced" -a 20 -b 20
run plain-html "$PERFSCOPE" html "$T/plain.exp"
expect_eq 0 "$RC" "html of a run without OpenMP"
report_data "$T/plain.exp/report.html" >"$T/plain.json"
expect_eq false "$(json_eval "$T/plain.json" '"openmp" in d')" "no OpenMP data without OpenMP records"
finish

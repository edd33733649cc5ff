#!/usr/bin/env bash
# perfscope export --format chrome: Chrome Trace Event JSON that parses, with one B event per
# traced call (examples/calls: counts known in advance, per function and per thread), B/E
# nesting on every track with non-decreasing timestamps in file order, process and thread
# names, C++ names with <>&" and region names with quotes, control characters and a byte that
# is not UTF-8 decoded back exactly, page-fault counter tracks whose values differ by the pages
# touched, calls a crashed run never left closed and marked, and the output rules (no
# overwrite without --force, -o -, the default file, unknown or missing --format).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3

# facts JSON: one line per fact about the trace, read by the checks below (names as JSON
# strings, so that any character survives). Nesting and order are checked here per track:
#   parse ok | unit U | events N | ts_bad N (a "ts" not printed with three decimals)
#   nest_errors N | order_errors N (problems listed on stderr)
#   calls N | ends N | synthetic_ends N            (function tracks: tid < 1000000000)
#   call NAME N | thread_call TID NAME N | max_depth TID N
#   region NAME N | region_ends N | process_name PID NAME | thread_name TID NAME
#   counter NAME V1 V2 ..                         (a counter track's values in order)
facts() {
	python3 - "$1" <<'EOF'
import collections, json, re, sys

path = sys.argv[1]
raw = open(path, "rb").read()
try:
    d = json.loads(raw.decode("utf-8"))
except Exception as e:
    print("parse failed")
    print("error:", e, file=sys.stderr)
    sys.exit(0)
print("parse ok")
print("unit", d.get("displayTimeUnit"))
ev = d["traceEvents"]
print("events", len(ev))
ts_all = re.findall(rb'"ts":([^,}]*)', raw)
print("ts_bad", sum(1 for t in ts_all if not re.fullmatch(rb"-?[0-9]+\.[0-9]{3}", t)))
OFF = 1000000000
stacks = collections.defaultdict(list)
last = {}
depth = collections.defaultdict(int)
nest = order = calls = ends = synth = rends = 0
per_name = collections.Counter()
per_thread = collections.Counter()
regions = collections.Counter()
counters = collections.defaultdict(list)
for e in ev:
    ph = e["ph"]
    if ph == "M":
        if e["name"] == "process_name":
            print("process_name", e["pid"], json.dumps(e["args"]["name"]))
        elif e["name"] == "thread_name":
            print("thread_name", e["tid"], json.dumps(e["args"]["name"]))
        continue
    key = (e["pid"], e["tid"])
    if ph == "C":
        for k, v in e["args"].items():
            counters[e["name"] + " " + k].append(v)
        continue
    if ph not in "BE":
        continue
    if key in last and e["ts"] < last[key]:
        order += 1
        print("time goes back on", key, "at", e, file=sys.stderr)
    last[key] = e["ts"]
    st = stacks[key]
    fn = e["tid"] < OFF
    if ph == "B":
        st.append(e["name"])
        if fn:
            calls += 1
            per_name[e["name"]] += 1
            per_thread[(e["tid"], e["name"])] += 1
            depth[e["tid"]] = max(depth[e["tid"]], len(st))
        else:
            regions[e["name"]] += 1
    else:
        if not st:
            nest += 1
            print("E without B on", key, e, file=sys.stderr)
            continue
        st.pop()
        if fn:
            ends += 1
            synth += e.get("args", {}).get("exit_recorded") is False
        else:
            rends += 1
for key, st in stacks.items():
    if st:
        nest += 1
        print("B without E on", key, st, file=sys.stderr)
print("nest_errors", nest)
print("order_errors", order)
print("calls", calls)
print("ends", ends)
print("synthetic_ends", synth)
print("region_ends", rends)
for n, c in per_name.items():
    print("call", json.dumps(n), c)
for (t, n), c in per_thread.items():
    print("thread_call", t, json.dumps(n), c)
for t, m in depth.items():
    print("max_depth", t, m)
for n, c in regions.items():
    print("region", json.dumps(n), c)
for n, v in counters.items():
    print("counter", json.dumps(n), *v)
EOF
}

# fact FILE KEY..: the rest of the first line of FILE starting with the words KEY..
fact() {
	local file=$1
	shift
	K="$*" awk 'index($0, ENVIRON["K"] " ") == 1 { print substr($0, length(ENVIRON["K"]) + 2); exit }' "$file"
}

# export_or_die NAME DIR ARGS..: perfscope export DIR --format chrome ARGS.. must succeed
export_or_die() {
	local name=$1 dir=$2
	shift 2
	run "$name" "$PERFSCOPE" export "$dir" --format chrome "$@"
	if [ "$RC" -ne 0 ]; then
		show "$name"
		die "perfscope export $dir --format chrome $* exited $RC"
	fi
}

# check_well_formed FACTS WHAT: parses, ns display unit, every track nested and ordered
check_well_formed() {
	expect_eq ok "$(fact "$1" parse)" "$2: the JSON parses"
	expect_eq ns "$(fact "$1" unit)" "$2: displayTimeUnit"
	expect_eq 0 "$(fact "$1" ts_bad)" "$2: every ts printed as microseconds with three decimals"
	expect_eq 0 "$(fact "$1" nest_errors)" "$2: B/E nest on every track"
	expect_eq 0 "$(fact "$1" order_errors)" "$2: timestamps never go back on a track"
}

# ---------------------------------------------------------------- examples/calls
prog=$EX/calls
[ -x "$prog" ] || die "$prog was not built"
d=$T/calls.exp
record_or_die rec "$d" --functions -- "$prog"
export_or_die exp "$d" -o "$T/calls.json"
expect_grep "wrote $T/calls.json" "$T/exp.err" "export names the file it wrote"
expect_grep "2014 function calls" "$T/exp.err" "export's summary counts the calls"
facts "$T/calls.json" >"$T/calls.facts"
f=$T/calls.facts
check_well_formed "$f" calls
# calls.c: main 1, leaf 1000, rec 11 (main thread); worker 1 + work 500 in each of 2 threads
expect_eq 2014 "$(fact "$f" calls)" "calls: B events on function tracks = calls made"
expect_eq 2014 "$(fact "$f" ends)" "calls: E events on function tracks"
expect_eq 0 "$(fact "$f" synthetic_ends)" "calls: no made-up exits in a clean run"
for fc in main:1 leaf:1000 rec:11 worker:2 work:1000; do
	expect_eq "${fc#*:}" "$(fact "$f" call "\"${fc%:*}\"")" "calls: B events of ${fc%:*}"
done
pid=$(awk '/^process_name/ { print $2; exit }' "$f")
expect_eq '"calls"' "$(fact "$f" process_name "$pid")" "calls: the process is named after its executable"
expect_eq 3 "$(grep -c '^thread_name' "$f")" "calls: one thread_name per thread (no region tracks)"
expect_eq '"calls"' "$(fact "$f" thread_name "$pid")" "calls: the main thread's name (from its stream)"
expect_eq 1000 "$(fact "$f" thread_call "$pid" '"leaf"')" "calls: leaf on the main thread"
expect_eq 11 "$(fact "$f" thread_call "$pid" '"rec"')" "calls: rec on the main thread"
# main > rec(10) > rec(9) > .. > rec(0): 12 frames deep
expect_eq 12 "$(fact "$f" max_depth "$pid")" "calls: deepest nesting on the main thread"
workers=$(awk '$1 == "thread_call" && $3 == "\"work\"" && $4 == 500 { n++ } END { print n + 0 }' "$f")
expect_eq 2 "$workers" "calls: two threads with 500 calls of work each"
for tid in $(awk '$1 == "thread_call" && $3 == "\"work\"" { print $2 }' "$f"); do
	expect_eq 1 "$(fact "$f" thread_call "$tid" '"worker"')" "calls: worker once on thread $tid"
	expect_ne "" "$(fact "$f" thread_name "$tid")" "calls: thread $tid is named"
done

# ---------------------------------------------------------------- output rules
run again "$PERFSCOPE" export "$d" --format chrome -o "$T/calls.json"
expect_eq 2 "$RC" "export over an existing file: exit status"
expect_grep "--force" "$T/again.err" "export over an existing file: says how to overwrite"
expect_eq ok "$(fact "$T/calls.facts" parse)" "export over an existing file: the file is left alone"
cmp -s "$T/calls.json" <("$PERFSCOPE" export "$d" --format chrome -o - 2>/dev/null) ||
	fail "-o - writes the same trace to stdout"
PSC_CHECKS=$((PSC_CHECKS + 1))
export_or_die forced "$d" -o "$T/calls.json" --force
expect_grep "wrote $T/calls.json" "$T/forced.err" "export --force over an existing file"
# default output: perfscope.json in the current directory, not overwritten either
(cd "$T" && "$PERFSCOPE" export "$d" --format chrome >"$T/default.out" 2>"$T/default.err") ||
	fail "export without -o: exit status $?"
expect_file "$T/perfscope.json" "export without -o writes perfscope.json in the current directory"
RC=0
(cd "$T" && "$PERFSCOPE" export "$d" --format chrome >/dev/null 2>&1) || RC=$?
expect_eq 2 "$RC" "export without -o when perfscope.json exists: exit status"
run badfmt "$PERFSCOPE" export "$d" --format otf3 -o "$T/x.json"
expect_eq 2 "$RC" "unknown --format: exit status"
expect_grep "unknown format 'otf3'; formats: chrome" "$T/badfmt.err" "unknown --format lists the formats"
expect_no_file "$T/x.json" "unknown --format writes nothing"
run nofmt "$PERFSCOPE" export "$d" -o "$T/x.json"
expect_eq 2 "$RC" "no --format: exit status"
expect_grep "formats: chrome" "$T/nofmt.err" "no --format lists the formats"
run nodir "$PERFSCOPE" export "$T/nonexistent" --format chrome -o "$T/x.json"
expect_eq 2 "$RC" "missing experiment: exit status"
expect_no_file "$T/x.json" "missing experiment writes nothing"

# ---------------------------------------------------------------- C++ names
if command -v "${CXX:-g++}" >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
	cat >"$T/names.cpp" <<'CPP'
template <typename T> struct Box {
	T v;
};
template <typename T> __attribute__((noipa)) int pick(const T &x)
{
	return (int)sizeof(x);
}
__attribute__((noipa)) unsigned long long operator""_w(unsigned long long v)
{
	return v * 3;
}
int main()
{
	Box<Box<char>> b{};
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += pick(b);
	s += (int)(7_w);
	return s == 3 * (int)sizeof(b) + 21 ? 0 : 1;
}
CPP
	build_traced names "$T/names.cpp" "${CXX:-g++}"
	# the oracle: binutils' demangled symbol names
	pick=$(nm -C "$T/names" | sed -n 's/^[0-9a-f]* [TtWw] \(.*pick<.*\)$/\1/p' | head -n 1)
	lit=$(nm -C "$T/names" | sed -n 's/^[0-9a-f]* [TtWw] \(operator"".*\)$/\1/p' | head -n 1)
	record_or_die rec-cxx "$T/names.exp" --functions -- "$T/names"
	export_or_die exp-cxx "$T/names.exp" -o "$T/names.json"
	facts "$T/names.json" >"$T/names.facts"
	check_well_formed "$T/names.facts" "C++ names"
	expect_ne "" "$pick" "nm -C shows the template instance"
	expect_eq 3 "$(fact "$T/names.facts" call "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$pick")")" \
		"C++: 3 calls of $pick, named with <, > and &"
	expect_eq 1 "$(fact "$T/names.facts" call "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$lit")")" \
		"C++: 1 call of $lit, named with quotes"
else
	note "no C++ compiler or nm: C++ names not checked"
fi

# ---------------------------------------------------------------- regions and their names
cat >"$T/regions.c" <<'C'
#include "perfscope.h"

int main(void)
{
	const char *odd = "say \"hi\"\t<a&b>\x01\xff end";

	psc_region_begin(odd);
	psc_region_begin("touch");
	psc_region_end("touch");
	psc_region_begin("back\\slash");
	psc_region_end("back\\slash");
	psc_region_end(odd);
	return 0;
}
C
build_c regions "$T/regions.c"
record_or_die rec-reg "$T/regions.exp" -- "$T/regions"
export_or_die exp-reg "$T/regions.exp" -o "$T/regions.json"
f=$T/regions.facts
facts "$T/regions.json" >"$f"
check_well_formed "$f" regions
expect_eq 1 "$(fact "$f" region '"say \"hi\"\t<a&b>\u0001\ufffd end"')" \
	"regions: a name with quotes, a tab, <>&, a control character and a non-UTF-8 byte"
expect_eq 1 "$(fact "$f" region '"touch"')" "regions: touch"
expect_eq 1 "$(fact "$f" region '"back\\slash"')" "regions: a name with a backslash"
expect_eq 3 "$(fact "$f" region_ends)" "regions: every region ends"
expect_eq 0 "$(fact "$f" calls)" "regions: no function calls without --functions"
expect_grep '\u0001' "$T/regions.json" "regions: a control character is written as \\u0001"
expect_grep '\ufffd' "$T/regions.json" "regions: a byte that is not UTF-8 is written as \\ufffd"
pid=$(awk '/^process_name/ { print $2; exit }' "$f")
expect_eq '"regions of regions"' "$(fact "$f" thread_name $((pid + 1000000000)))" \
	"regions: the region track is named after its thread"
expect_eq "" "$(grep '^counter' "$f")" "regions: no counter tracks when no events were recorded"

# ---------------------------------------------------------------- counter tracks
# pagewalk -n 200 (never instrumented, so exact in sanitizer builds too) takes exactly 200
# page faults inside region "walk": the counter track rises by 200 from its begin to its end
prog=$EX/pagewalk
[ -x "$prog" ] || die "$prog was not built"
record_or_die rec-walk "$T/walk.exp" -e page-faults -- "$prog" -n 200
export_or_die exp-walk "$T/walk.exp" -o "$T/walk.json"
f=$T/walk.facts
facts "$T/walk.json" >"$f"
check_well_formed "$f" "page-faults counter"
expect_eq 1 "$(fact "$f" region '"walk"')" "page-faults counter: region walk"
pid=$(awk '/^process_name/ { print $2; exit }' "$f")
pf=$(fact "$f" counter "\"page-faults tid $pid value\"")
if [ -n "$pf" ]; then
	read -r -a v <<<"$pf"
	expect_eq 2 "${#v[@]}" "page-faults counter: one value at each boundary of walk"
	expect_eq 200 "$((v[1] - v[0]))" "page-faults counter: the track rises by the 200 pages walk touched"
	expect_grep "2 counter values" "$T/exp-walk.err" "page-faults counter: export counts the values"
else
	note "no page-faults counter values (event not countable here?): $(head -c 300 "$T/rec-walk.err")"
fi

# ---------------------------------------------------------------- a crashed run
cat >"$T/crash.c" <<'C'
#include <stdlib.h>

__attribute__((noipa)) static void inner(void)
{
	abort();
}

__attribute__((noipa)) static void outer(void)
{
	inner();
}

int main(void)
{
	outer();
	return 0;
}
C
build_traced crash "$T/crash.c"
run rec-crash "$PERFSCOPE" record --functions -o "$T/crash.exp" -- "$T/crash"
expect_ne 0 "$RC" "abort(): record reports the failed command"
export_or_die exp-crash "$T/crash.exp" -o "$T/crash.json"
f=$T/crash.facts
facts "$T/crash.json" >"$f"
check_well_formed "$f" "crashed run"
expect_eq 3 "$(fact "$f" calls)" "crashed run: main, outer, inner begin"
expect_eq 3 "$(fact "$f" synthetic_ends)" "crashed run: their ends are made up and marked"
expect_grep "3 calls have no recorded exit" "$T/exp-crash.err" "crashed run: export says so"

finish

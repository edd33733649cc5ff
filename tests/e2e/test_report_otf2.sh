#!/usr/bin/env bash
# test_report_otf2.sh - `perfscope report` on an OTF2 archive's anchor file.
# - The Score-P ping-pongs of tests/data/otf2: per region and location, calls = the ENTER
#   events otf2-print shows, inclusive/exclusive/min/max time = the Leave - Enter times in
#   the archive's ticks converted to ns (a small Python reading otf2-print's output and
#   CLOCK_PROPERTIES, not perfscope), per thread and merged (CSV), and in JSON.
# - --by scope --categories on the ping-pong: MPI_Send and MPI_Recv per rank as the events say,
#   and main's computation = its exclusive time plus the routines perfscope does not model.
# - Options that need data an archive lacks (--lines, --accuracy, --by sample, --by region):
#   one line naming the limitation, exit 2.
# - Round trips through perfscope export --format otf2: examples/calls (threads, recursion)
#   gives the directory's function rows exactly; with mpirun, the traced ring gives its
#   functions' calls and inclusive times, the MPI routines of perfscope mpi --routines, and
#   each function's exclusive time = its computation in report --by scope --categories.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd otf2-print python3
DATA=$PSC_SOURCE/tests/data/otf2

# expect_egrep REGEX FILE WHAT: FILE has a line matching the extended REGEX
expect_egrep() {
	PSC_CHECKS=$((PSC_CHECKS + 1))
	grep -qE -- "$1" "$2" || fail "$3: /$1/ not found in $(basename "$2"): $(head -c 2000 "$2")"
}

# expected ARCHIVE: "name,location,calls,incl_ns,excl_ns,min_ns,max_ns" per region and location
# (sorted), from otf2-print alone
expected() {
	otf2-print -G "$1" >"$T/defs.txt"
	otf2-print "$1" >"$T/events.txt"
	python3 - "$T/defs.txt" "$T/events.txt" <<'EOF'
import re, sys
defs = open(sys.argv[1]).read()
res = int(re.search(r"Ticks per Seconds: (\d+)", defs).group(1))
off = int(re.search(r"Global Offset: (\d+)", defs).group(1))
ns = lambda t: (t - off) * 10**9 // res
ev = re.compile(r'^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "(.*)" <(\d+)>')
stacks, rows = {}, {}
for line in open(sys.argv[2]):
    m = ev.match(line)
    if not m:
        continue
    kind, loc, t, name, rid = m.group(1), int(m.group(2)), ns(int(m.group(3))), m.group(4), m.group(5)
    st = stacks.setdefault(loc, [])
    if kind == "ENTER":
        st.append([rid, name, t, 0])
        continue
    rid0, name, t0, child = st.pop()
    assert rid0 == rid, "misnested trace"
    incl = t - t0
    if st:
        st[-1][3] += incl
    r = rows.setdefault((name, loc), [0, 0, 0, None, 0])
    r[0] += 1
    if not any(f[0] == rid for f in st):
        r[1] += incl
    r[2] += incl - child
    r[3] = incl if r[3] is None else min(r[3], incl)
    r[4] = max(r[4], incl)
for (name, loc), r in sorted(rows.items()):
    print(f"{name},{loc},{r[0]},{r[1]},{r[2]},{r[3]},{r[4]}")
EOF
}

# csv_rows FILE: report --csv rows as "name,thread,calls,incl,excl,min,max", sorted
csv_rows() {
	python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
for r in sorted(",".join(r[:7]) for r in rows):
    print(r)' "$1"
}

# merged ROWS: the rows summed over locations ("all"): calls, incl, excl, min, max
merged() {
	python3 -c '
import sys
m = {}
for line in open(sys.argv[1]):
    name, loc, c, i, e, lo, hi = line.rsplit(",", 6)
    r = m.setdefault(name, [0, 0, 0, None, 0])
    r[0] += int(c); r[1] += int(i); r[2] += int(e)
    r[3] = int(lo) if r[3] is None else min(r[3], int(lo)); r[4] = max(r[4], int(hi))
for name in sorted(m):
    r = m[name]
    print(f"{name},all,{r[0]},{r[1]},{r[2]},{r[3]},{r[4]}")' "$1"
}

for a in ping-pong-otf2 ping-pong-otf2-papi; do
	anchor=$DATA/$a/traces.otf2
	[ -f "$anchor" ] || die "$anchor is missing"
	expected "$anchor" >"$T/$a.exp"
	# the trace: main, MPI_Init, 8 MPI_Send and 8 MPI_Recv... on each of 2 locations
	expect_eq 14 "$(wc -l <"$T/$a.exp")" "$a: regions x locations"
	expect_eq "8 8" "$(awk -F, '$1 == "MPI_Send" { print $3 }' "$T/$a.exp" | xargs)" \
		"$a: MPI_Send calls per location"
	run thr "$PERFSCOPE" report "$anchor" --by thread --csv
	expect_eq 0 "$RC" "$a: report --by thread --csv" || show thr
	csv_rows "$T/thr.out" >"$T/$a.got"
	diff "$T/$a.exp" "$T/$a.got" >"$T/$a.diff" 2>&1 ||
		fail "$a: per-thread rows differ from otf2-print's events: $(cat "$T/$a.diff")"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	run all "$PERFSCOPE" report "$anchor" --csv
	expect_eq 0 "$RC" "$a: report --csv" || show all
	merged "$T/$a.exp" >"$T/$a.mexp"
	csv_rows "$T/all.out" >"$T/$a.mgot"
	diff "$T/$a.mexp" "$T/$a.mgot" >"$T/$a.mdiff" 2>&1 ||
		fail "$a: merged rows differ from otf2-print's events: $(cat "$T/$a.mdiff")"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	run js "$PERFSCOPE" report "$anchor" --json
	expect_eq 0 "$RC" "$a: report --json" || show js
	json_ok "$T/js.out" || fail "$a: report --json is no JSON"
	expect_eq 16 "$(json_eval "$T/js.out" '[f["calls"] for f in d["functions"] if f["name"] == "MPI_Send"][0]')" \
		"$a: JSON MPI_Send calls"
	expect_eq "$(grep -c '^ENTER ' "$T/events.txt")" "$(json_eval "$T/js.out" 'd["calls"]')" \
		"$a: JSON calls = ENTER events"
done

# the text table: every region's row, with the routine's module for MPI
anchor=$DATA/ping-pong-otf2/traces.otf2
run text "$PERFSCOPE" report "$anchor"
expect_eq 0 "$RC" "report ARCHIVE" || show text
expect_egrep '^  MPI_Send  +16 .* MPI$' "$T/text.out" "text: MPI_Send row"
expect_egrep '^  int main\(int, char\*\*\)  +2 .* ping-pong.c:5$' "$T/text.out" "text: main's row"
expect_grep 'Functions, by exclusive time: 42 calls in 2 threads' "$T/text.out" "text: heading"
run tree "$PERFSCOPE" report "$anchor" --tree
expect_eq 0 "$RC" "report --tree ARCHIVE" || show tree
expect_egrep ' 16 .*    MPI_Recv$' "$T/tree.out" "tree: MPI_Recv under main"

# --by scope --categories: the events give MPI_Send/MPI_Recv per rank; main's computation is
# its exclusive time and the routines the model does not know (MPI_Comm_size, MPI_Comm_rank)
# (main's name has a comma: "main" here)
expected "$anchor" | sed 's/^int main(int, char\*\*),/main,/' >"$T/pp.exp"
run sc "$PERFSCOPE" report "$anchor" --by scope,rank --categories --csv
expect_eq 0 "$RC" "--by scope --categories on the archive" || show sc
sed -i 's/^"int main(int, char\*\*)",/main,/' "$T/sc.out"
expect_eq 3 "$(awk -F, '$1 == "main" && NF > 10' "$T/sc.out" | wc -l)" "main's scope rows (all, 0, 1)"
for loc in 0 1; do
	for r in MPI_Send MPI_Recv; do
		want=$(awk -F, -v r="$r" -v l="$loc" '$1 == r && $2 == l { print $3 "," $4 }' "$T/pp.exp")
		got=$(awk -F, -v r="$r" -v l="$loc" '$1 == "main" && $3 == l && $4 == r { print $5 "," $6 }' "$T/sc.out")
		expect_eq "$want" "$got" "scope op $r of rank $loc: calls,time"
	done
	want=$(awk -F, -v l="$loc" '($1 ~ /^MPI_Comm_(size|rank)$/ && $2 == l) { s += $4 }
		$1 == "main" && $2 == l { s += $5 } END { print s }' "$T/pp.exp")
	got=$(awk -F, -v l="$loc" '$1 == "main" && $3 == l && NF > 10 { print $7 }' "$T/sc.out")
	expect_eq "$want" "$got" "scope main's computation on rank $loc"
done
got=$(awk -F, '$1 == "main" && $3 == "all" && NF > 10 { print ($7 + $8 + $9 == $6) }' "$T/sc.out")
expect_eq 1 "$got" "scope categories add up to the exclusive time"

# data an archive does not have: one line, exit 2
for args in "--lines" "--accuracy" "--by sample" "--by region"; do
	# shellcheck disable=SC2086
	run lim "$PERFSCOPE" report $args "$anchor"
	expect_eq 2 "$RC" "report $args ARCHIVE: exit status"
	expect_eq 1 "$(wc -l <"$T/lim.err")" "report $args ARCHIVE: one line"
	expect_egrep "^perfscope report: $anchor: an OTF2 archive has no (samples|perfscope regions).*${args#--by }" \
		"$T/lim.err" "report $args ARCHIVE: names the limitation"
done
run bad "$PERFSCOPE" report "$T/defs.txt.otf2"
expect_eq 2 "$RC" "a missing archive"

# round trip: examples/calls exported, its function rows exactly as the directory's
cd "$T"
if [ -x "$EX/calls" ]; then
	record_or_die rec calls.exp --functions -- "$EX/calls"
	run ex "$PERFSCOPE" export calls.exp --format otf2 -o calls.otf2
	expect_eq 0 "$RC" "export calls" || show ex
	for by in "" "--by thread"; do
		# shellcheck disable=SC2086
		report_csv_or_die d calls.exp $by
		# shellcheck disable=SC2086
		report_csv_or_die o calls.otf2/traces.otf2 $by
		# per thread, the threads' ids differ (the OTF2 location ids): rows without them
		csv_rows "$T/d.out" | awk -F, -v OFS=, '{ $2 = "t" } 1' | sort >d.rows
		csv_rows "$T/o.out" | awk -F, -v OFS=, '{ $2 = "t" } 1' | sort >o.rows
		expect_eq 5 "$(cut -d, -f1 d.rows | sort -u | wc -l)" "calls: functions ($by)"
		diff d.rows o.rows >rt.diff 2>&1 || fail "calls round trip ($by): $(cat rt.diff)"
		PSC_CHECKS=$((PSC_CHECKS + 1))
	done
else
	note "examples/calls not built: its round trip not checked"
fi

# round trip with MPI: the traced ring on 2 ranks
ring=$EX/mpi/ring_traced
if command -v mpirun >/dev/null 2>&1 && [ -x "$ring" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	unset PERFSCOPE_CLOCK PERFSCOPE_TEST_CLOCK_SKEW PERFSCOPE_MPI_LOAD
	run rrec timeout -k 5 60 "$PERFSCOPE" record --mpi --functions -o ring.exp -- \
		mpirun -np 2 "$ring"
	expect_eq 0 "$RC" "record the traced ring" || show rrec
	run rex "$PERFSCOPE" export ring.exp --format otf2 -o ring.otf2
	expect_eq 0 "$RC" "export the traced ring" || show rex
	report_csv_or_die rd ring.exp
	report_csv_or_die ro ring.otf2/traces.otf2
	report_csv_or_die rs ring.exp --by scope --categories
	run rr "$PERFSCOPE" mpi ring.exp --routines --csv
	# functions: calls and inclusive times as in the directory (times within 1 us: the
	# export aligns rank 1's clock to rank 0's); exclusive = the scope's computation
	python3 - "$T/rd.out" "$T/ro.out" "$T/rs.out" "$T/rr.out" >ring.chk <<'EOF' || true
import csv, sys
d = {r[0]: r for r in list(csv.reader(open(sys.argv[1])))[1:]}
o = {r[0]: r for r in list(csv.reader(open(sys.argv[2])))[1:]}
lines = open(sys.argv[3]).read().split("\n\n")[0].splitlines()
s = {r[0]: r for r in csv.reader(lines[1:]) if r[2] == "all"}
rt = {r[1]: r for r in list(csv.reader(open(sys.argv[4])))[1:] if r[0] == "all"}
bad = []
near = lambda a, b: abs(int(a) - int(b)) <= 1000
for name, r in d.items():
    q = o.get(name)
    if not q or q[2] != r[2] or not near(q[3], r[3]):
        bad.append(f"{name}: directory {r[2:4]} archive {q[2:4] if q else None}")
    elif name in s and not near(q[4], s[name][6]):
        bad.append(f"{name}: archive exclusive {q[4]}, directory computation {s[name][6]}")
for name, r in rt.items():
    q = o.get(name)
    if not q or q[2] != r[2] or not near(q[3], r[3]):
        bad.append(f"{name}: mpi --routines {r[2:4]} archive {q[2:4] if q else None}")
print(len(d), len(rt), len(bad))
print("\n".join(bad))
EOF
	expect_eq "0" "$(head -n 1 ring.chk | cut -d' ' -f3)" "ring round trip: $(tail -n +2 ring.chk)"
	expect_cmp "$(head -n 1 ring.chk | cut -d" " -f1)" ">=" 3 "ring round trip: functions compared"
	expect_cmp "$(head -n 1 ring.chk | cut -d" " -f2)" ">=" 4 "ring round trip: MPI routines compared"
else
	note "no mpirun or ring_traced: the MPI round trip is not checked"
fi
finish

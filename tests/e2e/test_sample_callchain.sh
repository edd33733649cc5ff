#!/usr/bin/env bash
# Call trees from sampled call chains (record --sample --callgraph) on callchain, a program of
# known structure built with frame pointers, -O0 and nothing inlined: main calls a, which
# spins in spin, then b, which spins twice as long in spin: fixed amounts of work (~0.3 s and
# ~0.6 s of CPU time here), so their split holds however loaded the machine is. The report's inclusive ("children")
# share of a is ~1/3 and of b ~2/3 (+-10 points of the samples under main), their self shares
# ~0; the tree has spin under both a and b; --callers spin names a and b with main above them;
# options the sampled view does not have are usage errors (exit 2), never ignored; kernel
# samples are named from the experiment's kallsyms when record could read them. --min-share
# PCT keeps exactly the rows of the full report at or above PCT % (self share) and says how
# many it hid, prunes the tree by inclusive share (a and b under 40 %: only b stays), and is a
# usage error where it does not apply.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

d=$T/cc.exp
record_or_die rec "$d" --sample=1000 --callgraph -- "$EX/callchain"
report_csv_or_die rep "$d"
expect_eq "name,thread,samples,share,time_ns,file,line,incl_samples,incl_share,incl_ns" \
	"$(csv_header "$T/rep.out")" "CSV with inclusive columns when chains were recorded"
main_incl=$(csv_get "$T/rep.out" incl_share name=main)
expect_cmp "$main_incl" ">=" 90 "main's inclusive share (it calls everything)"
for f in a:33.3 b:66.7; do
	fn=${f%%:*} want=${f#*:}
	incl=$(csv_get "$T/rep.out" incl_share name=$fn)
	# the known split, of the samples under main (the rest is process start-up and exit)
	got=$(python3 -c "print(100 * $incl / $main_incl)")
	expect_near "$want" "$got" 10 "$fn's inclusive share of main's samples in %"
	expect_cmp "$(csv_get "$T/rep.out" share name=$fn)" "<=" 2 "$fn's self share (it only calls spin)"
done
expect_cmp "$(csv_get "$T/rep.out" share name=spin)" ">=" 85 "spin's self share"
expect_cmp "$(csv_get "$T/rep.out" incl_samples name=spin)" ">=" \
	"$(csv_get "$T/rep.out" samples name=spin)" "inclusive samples >= self samples"

# the same numbers in JSON
run js "$PERFSCOPE" report "$d" --json
expect_eq 0 "$RC" "report --json exits 0"
expect_eq "$(csv_get "$T/rep.out" incl_samples name=b)" \
	"$(json_eval "$T/js.out" '[f["incl_samples"] for f in d["functions"] if f["name"] == "b"][0]')" \
	"JSON incl_samples of b as in the CSV"

# the tree: main > a > spin and main > b > spin
run tree "$PERFSCOPE" report "$d" --tree
expect_eq 0 "$RC" "report --tree exits 0"
python3 - "$T/tree.out" >"$T/paths.txt" <<'PY'
import re, sys
stack, paths = [], set()
for line in open(sys.argv[1]):
    m = re.match(r"^\s+[\d.,kM]+\s+[\d.]+ %\s+[\d.]+ %\s+\S+ \S+  ( *)(\S.*)$", line)
    if not m:
        continue
    depth = len(m.group(1)) // 2
    stack[depth:] = [m.group(2)]
    paths.add(">".join(stack))
for p in sorted(paths):
    print(p)
PY
expect_grep 'main>a>spin' "$T/paths.txt" "tree: spin under a"
expect_grep 'main>b>spin' "$T/paths.txt" "tree: spin under b"
expect_no_grep 'main>spin' "$T/paths.txt" "tree: spin never called by main directly"
# --min-time prunes the paths under it: at 100 s every one
run tree_min "$PERFSCOPE" report "$d" --tree --min-time 100s
expect_eq 0 "$RC" "report --tree --min-time exits 0"
expect_no_grep 'spin' "$T/tree_min.out" "tree --min-time 100s leaves out every path"

# who calls spin: a and b, and main above each
report_csv_or_die callers "$d" --callers spin
expect_eq "depth,function,module,samples,share,time_ns" "$(csv_header "$T/callers.out")" "--callers CSV header"
expect_eq "0,spin" "$(sed -n 2p "$T/callers.out" | cut -d, -f1,2)" "--callers: the function first"
expect_eq 2 "$(grep -c '^1,\(a\|b\),' "$T/callers.out")" "--callers spin: a and b call it"
expect_eq 2 "$(grep -c '^2,main,' "$T/callers.out")" "--callers spin: main calls a and b"
expect_eq "$(csv_get "$T/rep.out" incl_samples name=spin)" "$(sed -n 2p "$T/callers.out" | cut -d, -f4)" \
	"--callers: spin's samples are its inclusive samples"
run callers_js "$PERFSCOPE" report "$d" --callers spin --json
expect_eq "spin" "$(json_eval "$T/callers_js.out" 'd["callers"]["tree"][0]["name"]')" "--callers in JSON"

# refused, never ignored: exit 2 with one line
for args in "--sort calls" "--sort mean" "--tree --top 3" "--tree --by thread" "--tree --lines" \
	"--tree --callers spin" "--callers nosuch" "--lines --min-time 1ms"; do
	# shellcheck disable=SC2086 # the options are words
	run bad "$PERFSCOPE" report "$d" $args
	expect_eq 2 "$RC" "report $args: usage error"
	expect_eq 1 "$(wc -l <"$T/bad.err")" "report $args: one line"
done
# sorted by inclusive time: the first row has the most inclusive samples, and main comes
# before a, b (fewer) and spin's self-only kin
report_csv_or_die incl "$d" --sort incl
# (read as CSV: names and files of sanitizer or C++ functions may hold quoted commas)
read -r first max < <(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[0]["incl_samples"], max(int(r["incl_samples"]) for r in rows))' "$T/incl.out")
expect_eq "$max" "$first" "--sort incl: the first row has the most inclusive samples"
order=$(python3 -c '
import csv, sys
print(" ".join(r["name"] for r in csv.DictReader(open(sys.argv[1])) if r["name"] in ("main", "a", "b")), end=" ")' "$T/incl.out")
expect_eq "main b a " "$order" "--sort incl: main, then b (2/3), then a (1/3)"

# without call chains: the tree and the callers are refused with the fix
# --min-share: the kept rows are the full report's rows at or above 5 %, in the same order
run ms "$PERFSCOPE" report "$d" --csv --min-share 5
expect_eq 0 "$RC" "--min-share 5 --csv"
# (names may hold quoted commas: C++ signatures, the sanitizers' own functions)
share_rows() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
keep = sys.argv[2] == "keep"
lines = open(sys.argv[1]).read().splitlines()
# one CSV line per row (no name holds a newline): the lines of the rows kept or hidden
out = [lines[0]] if keep else []
out += [l for r, l in zip(rows[1:], lines[1:]) if (float(r[3]) >= 5) == keep]
print("\n".join(out))
PY
}
want=$(share_rows "$T/rep.out" keep)
expect_eq "$want" "$(cat "$T/ms.out")" "--min-share 5 keeps exactly the rows at or above 5 %"
hidden=$(share_rows "$T/rep.out" hide | grep -c . || true)
[ "$hidden" = 1 ] && what=function || what=functions
expect_grep "perfscope report: $hidden $what under 5 % of the samples hidden (--min-share)" "$T/ms.err" \
	"--min-share says how many rows it hid ($hidden)"
run mst "$PERFSCOPE" report "$d" --tree --min-share 40
expect_eq 0 "$RC" "--tree --min-share 40"
expect_eq 1 "$(grep -cE ' b$' "$T/mst.out")" "b (2/3 of the samples) stays in the tree"
expect_eq 0 "$(grep -cE ' a$' "$T/mst.out" || true)" "a (1/3 of the samples) is pruned"
expect_grep "call-tree node" "$T/mst.out" "the tree says it hid nodes"
expect_grep "under 40 % of the samples hidden (--min-share)" "$T/mst.out" "the tree says under what it hid them"
for bad in "--min-share 0" "--min-share 150" "--min-share ten" "--min-share 5 --lines" \
	"--min-share 5 --accuracy" "--min-share 5 --by region"; do
	# shellcheck disable=SC2086 # the options are words
	run msbad "$PERFSCOPE" report "$d" $bad
	expect_eq 2 "$RC" "report $bad: usage error"
	expect_eq 1 "$(wc -l <"$T/msbad.err")" "report $bad: one line"
done

record_or_die rec2 "$T/flat.exp" --sample=1000 -- "$EX/callchain" -a 50 -b 50
run flat "$PERFSCOPE" report "$T/flat.exp" --tree
expect_eq 2 "$RC" "--tree without call chains: usage error"
expect_grep 'record with perfscope record --sample --callgraph' "$T/flat.err" "--tree says how to get call chains"

# kernel samples: named from the kallsyms saved at record time when /proc/kallsyms shows
# addresses, else said once
if [ -f "$d/kallsyms" ]; then
	expect_eq 0 "$(awk '$2 !~ /^[tTwW]$/' "$d/kallsyms" | wc -l)" "kallsyms keeps text symbols only"
	expect_no_grep 'the experiment has no kallsyms' "$T/rep.err" \
		"no kallsyms caveat when the file is there"
else
	expect_grep 'kernel functions will show as [kernel]' "$T/rec.err" "record says why kernel functions are not named"
fi
finish

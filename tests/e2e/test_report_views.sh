#!/usr/bin/env bash
# The report's views as data (issue 20), on the corpus's recorded experiments: the region CSV
# has the text table's columns, in its order; `report --tree` has CSV and JSON forms (one row
# per node, with its path and depth, in the text's order and with the text's values); every
# line of `--format long` is a cell of the CSV; --format csv/json are --csv/--json.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"
corpus_prepare "$T/work"
cd "$T/work"

# --- the region CSV: the text's columns, in the text's order, values from the same rows
run rtext "$PERFSCOPE" report regions --by region
run rcsv "$PERFSCOPE" report regions --by region --csv
expect_eq 0 "$RC" "report --by region --csv exit"
# the text's header line: the words under "Regions, by ...:"
text_cols=$(awk '/^Regions/ { getline; print; exit }' "$T/rtext.out" | tr -s ' ' '\n' | sed '/^$/d' | paste -sd,)
expect_eq "region,thread,calls,inclusive,exclusive,mean,min,max,task-clock,page-faults,context-switches" \
	"$text_cols" "the region text's columns"
expect_eq "name,thread,calls,incl_ns,excl_ns,mean_ns,min_ns,max_ns,task-clock,page-faults,context-switches" \
	"$(csv_header "$T/rcsv.out")" "the region CSV's columns (the text's, by key)"
# inner ran 10 times: its mean is its inclusive time over 10, between its min and max
incl=$(csv_get "$T/rcsv.out" incl_ns name=inner)
mean=$(csv_get "$T/rcsv.out" mean_ns name=inner)
expect_eq "$(python3 -c "print(round($incl / 10))")" "$mean" "inner's mean_ns: incl_ns / calls"
expect_eq 1 "$(python3 -c "print(int($(csv_get "$T/rcsv.out" min_ns name=inner) <= $mean <= $(csv_get "$T/rcsv.out" max_ns name=inner)))")" \
	"inner: min_ns <= mean_ns <= max_ns"
# the text says the same rows in the same order
expect_eq "$(awk -F, 'NR > 1 { print $1 }' "$T/rcsv.out" | paste -sd' ')" \
	"$(awk '/^Regions/ { getline; getline; on = 1; next } on && (!NF || $1 == "!") { exit } on { print $1 }' "$T/rtext.out" | paste -sd' ')" \
	"the region CSV's rows are the text's"

# --- the call tree as CSV and JSON: the text's nodes, in its order
for exp in calls fib; do
	run ttext "$PERFSCOPE" report "$exp" --tree --by thread
	run tcsv "$PERFSCOPE" report "$exp" --tree --by thread --csv
	expect_eq 0 "$RC" "$exp: report --tree --csv exit"
	run tjson "$PERFSCOPE" report "$exp" --tree --by thread --json
	expect_eq 0 "$RC" "$exp: report --tree --json exit"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	python3 - "$T/ttext.out" "$T/tcsv.out" "$T/tjson.out" <<'EOF' || fail "$exp: the tree's CSV and JSON against its text"
import csv, json, re, sys
text, rows, doc = open(sys.argv[1]).read().splitlines(), list(csv.DictReader(open(sys.argv[2]))), json.load(open(sys.argv[3]))
lines = [l for l in text if re.match(r"^ +\S+ (\S+ )?\s*[0-9.]+% ", l)]
assert len(lines) == len(rows) == len(doc["nodes"]) > 3, (len(lines), len(rows), len(doc["nodes"]))
for line, row, node in zip(lines, rows, doc["nodes"]):
    m = re.match(r"^ +(.+?) +([0-9.]+)% +([0-9,]+) +(.+?)  ( *)(\S+)$", line)
    assert m, line
    depth = len(m.group(5)) // 2
    assert row["name"] == m.group(6) == node["name"], (line, row)
    assert int(row["calls"]) == int(m.group(3).replace(",", "")) == node["calls"], (line, row)
    assert int(row["depth"]) == depth == node["depth"], (line, row)
    assert row["path"].split(";")[-1] == row["name"] and row["path"].count(";") == depth, row
    assert row["path"] == node["path"] and int(row["incl_ns"]) == node["incl_ns"], (row, node)
    assert row["thread"] != "all" and int(row["thread"]) == node["thread"], (row, node)
# a node's path is its parent's and its name
stack = []
for row in rows:
    d = int(row["depth"])
    stack[d:] = [row["name"]]
    assert row["path"] == ";".join(stack), (row, stack)
EOF
done

# --- long CSV: one line per row and numeric column, each value the CSV's cell
for args in "fib" "fib --by thread" "regions --by region" "calls --tree" "calls --tree --by thread" \
	"phases" "callchain --by thread"; do
	# shellcheck disable=SC2086 # ARGS are words
	run csv "$PERFSCOPE" report $args --csv
	# shellcheck disable=SC2086
	run long "$PERFSCOPE" report $args --format long
	expect_eq 0 "$RC" "report $args --format long exit"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	python3 - "$T/csv.out" "$T/long.out" <<'EOF' || fail "report $args: --format long against --csv"
import csv, sys
wide, long_ = list(csv.reader(open(sys.argv[1]))), list(csv.reader(open(sys.argv[2])))
head, lhead = wide[0], long_[0]
assert lhead[-2:] == ["metric", "value"], lhead
ents = lhead[:-2]
assert all(e in head for e in ents), (ents, head)
metrics = [c for c in head if c not in ents and c not in ("file", "source", "path", "name")]
assert len(long_) - 1 == (len(wide) - 1) * len(metrics), (len(long_), len(wide), metrics)
cells = {}
for r in wide[1:]:
    key = tuple(r[head.index(e)] for e in ents)
    for m in metrics:
        cells[key + (m,)] = r[head.index(m)]
for r in long_[1:]:
    assert cells[tuple(r[:-1])] == r[-1], r
EOF
done

# --- --format csv and json are --csv and --json
for f in csv json; do
	run a "$PERFSCOPE" report fib --$f
	run b "$PERFSCOPE" report fib --format $f
	PSC_CHECKS=$((PSC_CHECKS + 1))
	cmp -s "$T/a.out" "$T/b.out" || fail "report --format $f differs from --$f"
done
run bad "$PERFSCOPE" report fib --format xml
expect_eq 2 "$RC" "--format xml exit"
expect_grep "--format xml: expected text, csv, json or long" "$T/bad.err"
run both "$PERFSCOPE" report fib --format csv --json
expect_eq 2 "$RC" "--format with --json exit"
run sort "$PERFSCOPE" report fib --sort bogus
expect_grep "--sort bogus: expected incl, excl, calls, mean, max or name" "$T/sort.err"
# a column's key sorts as its word does
run s1 "$PERFSCOPE" report calls --sort incl --csv
run s2 "$PERFSCOPE" report calls --sort incl_ns --csv
PSC_CHECKS=$((PSC_CHECKS + 1))
cmp -s "$T/s1.out" "$T/s2.out" || fail "--sort incl and --sort incl_ns differ"
finish

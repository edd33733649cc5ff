#!/usr/bin/env bash
# The views of a sampled experiment in every format (issue 20), on the corpus's recordings of
# the examples, whose counts are fixed: callchain (record --sample=500 --callgraph) has 246
# samples, 167 of them in spin under main > b and 79 under main > a; phases (--sample=500 -e
# task-clock,page-faults) has 216 samples on three hottest lines (109, 104 and 3). The call
# tree, the callers tree, the lines and the accuracy each give text, CSV, JSON and long CSV of
# the same rows: a tree's CSV and JSON have one row per text line, in its order and with its
# values, each with its path; every long CSV line is a cell of the CSV, and the long CSV's
# totals are the text's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"
corpus_prepare "$T/work"
cd "$T/work"

# check NAME PYTHON..: run the Python checks with the outputs of the runs in $T, counted as one
check() {
	local what=$1
	shift
	PSC_CHECKS=$((PSC_CHECKS + 1))
	python3 - "$T" "$@" || fail "$what"
}

# long_against_csv WHAT CSV LONG: the long CSV is, in order, each CSV row's numeric columns,
# one line each with the row's naming columns and the CSV's cell
long_against_csv() {
	check "$1: --format long against --csv" "$2" "$3" <<'EOF'
import csv, sys
wide = list(csv.reader(open(sys.argv[1] + "/" + sys.argv[2] + ".out")))
long_ = list(csv.reader(open(sys.argv[1] + "/" + sys.argv[3] + ".out")))
head, lhead = wide[0], long_[0]
assert lhead[-2:] == ["metric", "value"], lhead
ents = lhead[:-2]
assert all(e in head for e in ents if e != "path"), (ents, head)
metrics = [c for c in head if c not in ents]
assert len(long_) - 1 == (len(wide) - 1) * len(metrics), (len(long_), len(wide), metrics)
for k, r in enumerate(long_[1:]):
    row = dict(zip(head, wide[1 + k // len(metrics)]))
    assert r[-2] == metrics[k % len(metrics)] and r[-1] == row[r[-2]], (r, row)
    assert all(row[e] == v for e, v in zip(ents, r) if e in row), (r, row)
EOF
}

# --- the call tree of samples
for f in text csv json long; do
	run "tree_$f" "$PERFSCOPE" report callchain --tree --format $f
	expect_eq 0 "$RC" "report --tree --format $f exit"
done
check "--tree: CSV, JSON and text have the same nodes" <<'EOF'
import csv, json, re, sys
t = sys.argv[1]
rows = list(csv.DictReader(open(t + "/tree_csv.out")))
nodes = json.load(open(t + "/tree_json.out"))["tree"]
assert len(nodes) == len(rows) and all(list(n) == list(r) for n, r in zip(nodes, rows))
for n, r in zip(nodes, rows):
    for k, v in n.items():
        assert (v == r[k] if isinstance(v, str) else abs(v - float(r[k])) < 1e-4), (k, n, r)
lines = [l for l in open(t + "/tree_text.out")
         if re.match(r"^\s+[\d,]+\s+[\d.]+ %\s+[\d.]+ %\s+\S+ \S+  ", l)]
assert len(lines) == len(rows) == 6, (len(lines), len(rows))
stack = []
for row, node, line in zip(rows, nodes, lines):
    d = int(row["depth"])
    stack[d:] = [row["name"]]
    assert row["path"] == ";".join(stack), (row, stack)
    assert node["path"] == row["path"] and node["samples"] == int(row["samples"]), node
    m = re.match(r"^\s+([\d,]+)\s+([\d.]+) %\s+([\d.]+) %\s+\S+ \S+  ( *)(\S.*)$", line)
    assert int(m.group(1).replace(",", "")) == int(row["samples"]), (line, row)
    assert m.group(2) == "%.1f" % float(row["share"]), (line, row)
    assert m.group(3) == "%.1f" % float(row["self_share"]), (line, row)
    assert len(m.group(4)) // 2 == d and m.group(5) == row["name"], (line, row)
paths = {r["path"].split(";", 1)[1]: int(r["samples"]) for r in rows if ";" in r["path"]}
assert paths["main;b;spin"] == 167 and paths["main;a;spin"] == 79, paths
assert sum(int(r["samples"]) for r in rows if r["depth"] == "0") == 246
assert sum(int(r["self_samples"]) for r in rows) == 246
EOF
run tree_csv2 "$PERFSCOPE" report callchain --tree --csv
PSC_CHECKS=$((PSC_CHECKS + 1))
cmp -s "$T/tree_csv.out" "$T/tree_csv2.out" || fail "--tree --format csv differs from --csv"
long_against_csv "--tree" tree_csv tree_long
check "--tree: the long CSV's totals are the text's (246 samples)" <<'EOF'
import csv, re, sys
t = sys.argv[1]
heading = open(t + "/tree_text.out").readline()
total = int(re.search(r"([\d,]+) samples standing", heading).group(1).replace(",", ""))
long_ = list(csv.DictReader(open(t + "/tree_long.out")))
roots = sum(int(r["value"]) for r in long_ if r["metric"] == "samples" and r["depth"] == "0")
selfs = sum(int(r["value"]) for r in long_ if r["metric"] == "self_samples")
assert total == roots == selfs == 246, (total, roots, selfs)
EOF
# --min-share prunes every format alike: a (32 %) and its spin go under 40 %
run tree_ms "$PERFSCOPE" report callchain --tree --min-share 40 --csv
run tree_ms_long "$PERFSCOPE" report callchain --tree --min-share 40 --format long
expect_eq 4 "$(($(wc -l <"$T/tree_ms.out") - 1))" "--tree --min-share 40: 4 nodes of 6"
expect_grep "2 call-tree nodes under 40 % of the samples hidden" "$T/tree_ms.err"
long_against_csv "--tree --min-share 40" tree_ms tree_ms_long

# --- the callers tree
for f in text csv json long; do
	run "cl_$f" "$PERFSCOPE" report callchain --callers spin --format $f
	expect_eq 0 "$RC" "report --callers spin --format $f exit"
done
long_against_csv "--callers" cl_csv cl_long
check "--callers: long CSV paths, and its totals are the text's" <<'EOF'
import csv, json, re, sys
t = sys.argv[1]
rows = list(csv.DictReader(open(t + "/cl_csv.out")))
long_ = list(csv.DictReader(open(t + "/cl_long.out")))
samples = [r for r in long_ if r["metric"] == "samples"]
assert [r["depth"] + r["function"] for r in samples] == \
    [r["depth"] + r["function"] for r in rows], "long CSV rows in the CSV's order"
stack = []
for r in samples:
    stack[int(r["depth"]):] = [r["function"]]
    assert r["path"] == ";".join(stack), (r, stack)
by_path = {r["path"]: int(r["value"]) for r in samples}
assert by_path["spin"] == 246 and by_path["spin;b"] == 167 and by_path["spin;a"] == 79, by_path
text = [l for l in open(t + "/cl_text.out") if re.match(r"^\s+[\d,]+\s+[\d.]+ %\s+\S+ \S+  ", l)]
assert [int(l.split()[0].replace(",", "")) for l in text] == [int(r["value"]) for r in samples]
d = json.load(open(t + "/cl_json.out"))["callers"]
assert d["function"] == "spin" and d["tree"][0]["samples"] == 246
assert [c["samples"] for c in d["tree"][0]["callers"]] == [167, 79]
EOF

# --- the hottest lines
for f in text csv json long; do
	run "ln_$f" "$PERFSCOPE" report phases --lines --format $f
	expect_eq 0 "$RC" "report --lines --format $f exit"
done
long_against_csv "--lines" ln_csv ln_long
check "--lines: 216 samples on 3 lines in every format" <<'EOF'
import csv, json, re, sys
t = sys.argv[1]
rows = list(csv.DictReader(open(t + "/ln_csv.out")))
long_ = list(csv.DictReader(open(t + "/ln_long.out")))
text = open(t + "/ln_text.out").read().split("Hottest source lines\n")[1]
text = [l.split() for l in text.splitlines()[2:] if l.strip() and "!" not in l]
assert [int(l[2].replace(",", "")) for l in text] == [109, 104, 3], text
assert [int(r["samples"]) for r in rows] == [109, 104, 3]
assert sum(int(r["value"]) for r in long_ if r["metric"] == "samples") == 216
assert [l["samples"] for l in json.load(open(t + "/ln_json.out"))["lines"]] == [109, 104, 3]
EOF
run ln_top "$PERFSCOPE" report phases --lines --top 2 --format long
expect_eq 6 "$(($(wc -l <"$T/ln_top.out") - 1))" "--lines --top 2 --format long: 2 lines x 3 metrics"

# --- the accuracy
for f in text csv json long; do
	run "ac_$f" "$PERFSCOPE" report phases --accuracy --format $f
	expect_eq 0 "$RC" "report --accuracy --format $f exit"
done
long_against_csv "--accuracy" ac_csv ac_long
check "--accuracy: the long CSV's totals are the text's" <<'EOF'
import csv, json, sys
t = sys.argv[1]
long_ = {(r["event"], r["metric"]): r["value"] for r in csv.DictReader(open(t + "/ac_long.out"))}
text = [l.split() for l in open(t + "/ac_text.out") if l.startswith("  ") and "%" in l]
assert [l[0] for l in text] == ["cpu-clock", "task-clock", "page-faults"], text
js = {a["event"]: a for a in json.load(open(t + "/ac_json.out"))["accuracy"]}
for l in text:
    est, exact = int(l[1].replace(",", "")), int(l[2].replace(",", ""))
    assert int(long_[(l[0], "estimated")]) == est and int(long_[(l[0], "exact")]) == exact, l
    assert js[l[0]]["estimated"] == est and js[l[0]]["exact"] == exact, l
    assert "%+.2f" % float(long_[(l[0], "diff_pct")]) == l[3], l
assert long_[("page-faults", "estimated")] == "46" and long_[("page-faults", "exact")] == "49"
EOF

# --- the functions, as before: long CSV against CSV
run fn_csv "$PERFSCOPE" report callchain --by sample --csv
run fn_long "$PERFSCOPE" report callchain --by sample --format long
long_against_csv "--by sample" fn_csv fn_long
finish

#!/usr/bin/env bash
# `perfscope timeline` as views (issue 20), on the corpus's sampled experiments: every line of
# `--format long` is a cell of the CSV (block by block: the events' values, the functions'
# samples) and no cell is left out; --format csv/json/text are --csv/--json/the default.
# Numbers known in advance: the functions' samples add up to the experiment's samples (info's
# sampling.samples), their shares to 100 % in every interval and thread with samples, and each
# rate is its value over the interval's length.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"
corpus_prepare "$T/work"
cd "$T/work"

# the long rows against what is known: samples, shares, rates
cat >"$T/known.py" <<'PY'
import collections, csv, io, json, sys
values, funcs = open(sys.argv[1]).read().split("\n\n")
want = json.load(open(sys.argv[2]))["sampling"]["samples"]
cells = collections.defaultdict(dict)
for r in list(csv.reader(io.StringIO(funcs)))[1:]:
    cells[tuple(r[:4])][r[4]] = r[5]
assert sum(int(v["samples"]) for v in cells.values()) == want, want
shares = collections.defaultdict(float)
for k, v in cells.items():
    shares[k[:3]] += float(v["share"])
assert shares and all(abs(s - 100) < 0.01 * len(cells) for s in shares.values()), shares
cells = collections.defaultdict(dict)
for r in list(csv.reader(io.StringIO(values)))[1:]:
    cells[tuple(r[:4])][r[4]] = r[5]
assert cells
for k, v in cells.items():
    if v["value"] == "":
        assert v["rate_per_s"] == "", (k, v)
        continue
    per_s = 1e9 / (int(k[1]) - int(k[0]))
    want = float(v["value"]) * per_s  # the value is rounded to 3 decimals, the rate too
    assert abs(float(v["rate_per_s"]) - want) <= 5e-4 * per_s + 1e-3, (k, v, want)
PY

for exp in phases callchain; do
	for args in "" "--interval 50ms --top 2" "--interval 7ms --top 1"; do
		# shellcheck disable=SC2086 # ARGS are words
		run csv "$PERFSCOPE" timeline $exp $args --csv
		# shellcheck disable=SC2086
		run long "$PERFSCOPE" timeline $exp $args --format long
		expect_eq 0 "$RC" "timeline $exp $args --format long exit"
		PSC_CHECKS=$((PSC_CHECKS + 1))
		python3 "$PSC_SOURCE/tests/e2e/long_vs_csv.py" --blocks 2 --leading-entities "$T/csv.out" "$T/long.out" ||
			fail "timeline $exp $args: --format long against --csv"
		run info "$PERFSCOPE" info $exp --json
		PSC_CHECKS=$((PSC_CHECKS + 1))
		python3 "$T/known.py" "$T/long.out" "$T/info.out" ||
			fail "timeline $exp $args: the long rows' samples, shares and rates"
		for f in csv json text; do
			opt=--$f
			[ $f != text ] || opt=
			# shellcheck disable=SC2086 # ARGS and OPT are words
			run a "$PERFSCOPE" timeline $exp $args $opt
			# shellcheck disable=SC2086
			run b "$PERFSCOPE" timeline $exp $args --format $f
			PSC_CHECKS=$((PSC_CHECKS + 1))
			cmp -s "$T/a.out" "$T/b.out" ||
				fail "timeline $exp $args: --format $f differs from ${opt:-the default}"
		done
	done
done
expect_eq "t_start_ns,t_end_ns,thread,event,metric,value" "$(head -1 "$T/long.out")" \
	"the values' long header"

# --format with --csv or --json, a format that is none: usage errors
run e "$PERFSCOPE" timeline phases --format long --csv
expect_eq 2 "$RC" "timeline --format with --csv exit"
run e "$PERFSCOPE" timeline phases --format yaml
expect_eq 2 "$RC" "timeline --format yaml exit"
expect_grep "format yaml: expected text, csv, json or long" "$T/e.err" "--format yaml: the message"
finish

#!/usr/bin/env bash
# `perfscope energy` as views (issue 20), on the corpus's energy experiment: every line of
# `--format long` is a cell of the CSV (block by block: the functions, the intervals; or the
# statistics) and no cell is left out; --format csv/json/text are --csv/--json/the default.
# Numbers known in advance: under a meter file of a constant 5 W, every long row's energy_j is
# 5 W x its time_ns, its power_w 5, and the statistics of the meter's column are 5 W with no
# spread at the file's 1000 samples per second.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3
. "$PSC_SOURCE/tests/corpus/corpus-lib.sh"
corpus_prepare "$T/work"
cd "$T/work"

# a constant 5 W from before the run's start to after its end, 1000 samples per second
python3 - energy/meta.json "$T/const.txt" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
open(sys.argv[2], "w").write("5\n" * (int((m["end_ns"] - m["start_ns"]) * 1e-6) + 20))
PY
const="--power $T/const.txt --power-rate 1000"

for args in "" "--intervals 4 --method both" "--inclusive --interval 20ms" "--top 1 --intervals 3" \
	"--channel package-0/core --top 2" "--stats" "$const --intervals 5"; do
	# shellcheck disable=SC2086 # ARGS are words
	run csv "$PERFSCOPE" energy energy $args --csv
	# shellcheck disable=SC2086
	run long "$PERFSCOPE" energy energy $args --format long
	expect_eq 0 "$RC" "energy $args --format long exit"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	python3 "$PSC_SOURCE/tests/e2e/long_vs_csv.py" "$T/csv.out" "$T/long.out" ||
		fail "energy $args: --format long against --csv"
	for f in csv json text; do
		[ "$f" != json ] || [ "$args" != --stats ] || continue
		# shellcheck disable=SC2086
		run a "$PERFSCOPE" energy energy $args $([ $f = text ] || echo --$f)
		# shellcheck disable=SC2086
		run b "$PERFSCOPE" energy energy $args --format $f
		PSC_CHECKS=$((PSC_CHECKS + 1))
		cmp -s "$T/a.out" "$T/b.out" || fail "energy $args: --format $f differs from --$f"
	done
done

# the constant meter: energy = 5 W x time in every row of both blocks, and the rows add up
# shellcheck disable=SC2086 # CONST is words
run long "$PERFSCOPE" energy energy $const --intervals 5 --format long
expect_eq "name,metric,value" "$(head -1 "$T/long.out")" "the functions' long header"
expect_eq "interval,t_start_ns,t_end_ns,name,metric,value" \
	"$(sed -n '/^$/{n;p;q}' "$T/long.out")" "the intervals' long header"
python3 - "$T/long.out" energy/meta.json <<'PY' || fail "constant power: long rows energy = 5 W x time"
import collections, csv, io, json, sys
funcs, slices = open(sys.argv[1]).read().split("\n\n")
m = json.load(open(sys.argv[2]))
run = (m["end_ns"] - m["start_ns"]) * 1e-9
for block, ents in ((funcs, 1), (slices, 4)):
    rows = collections.defaultdict(dict)
    for r in list(csv.reader(io.StringIO(block)))[1:]:
        rows[tuple(r[:ents])][r[ents]] = r[ents + 1]
    assert len(rows) >= 4, rows
    for key, v in rows.items():
        e, t = float(v["energy_j"]), int(v["time_ns"])
        assert abs(e - 5 * t * 1e-9) <= 1e-3 * 5 * t * 1e-9 + 1e-12, (key, v)
        if ents == 1:
            assert float(v["power_w"]) == 5, (key, v)
    total = sum(float(v["energy_j"]) for v in rows.values())
    assert abs(total - 5 * run) <= 1e-6 * 5 * run, (total, 5 * run)
PY
# shellcheck disable=SC2086
run st "$PERFSCOPE" energy energy $const --stats --format long
expect_eq "column,unit,metric,value" "$(head -1 "$T/st.out")" "the statistics' long header"
for mv in mean,5 sd,0 min,5 max,5 rate_hz,1000; do
	expect_eq 1 "$(grep -cx "power,W,$mv" "$T/st.out")" "statistics: power,W,$mv"
done

# --format with --csv or --json, a format that is none, --stats without CSV: usage errors
run e "$PERFSCOPE" energy energy --format long --json
expect_eq 2 "$RC" "energy --format with --json exit"
run e "$PERFSCOPE" energy energy --format yaml
expect_eq 2 "$RC" "energy --format yaml exit"
run e "$PERFSCOPE" energy energy --format json --stats
expect_eq 2 "$RC" "energy --format json --stats exit"
expect_grep "stats goes with --csv or --format long" "$T/e.err" "--stats with JSON: the message"
finish

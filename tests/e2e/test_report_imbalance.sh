#!/usr/bin/env bash
# test_report_imbalance.sh - the load imbalance per function, (max - mean) / max over the
# threads with function events, against the program's own clock: imbalance-prog's threads
# spend 20, 40 and 60 ms in work() (they print what they measured), main none: over the 4
# traced threads the mean is 30 ms, the max 60, the imbalance 50 %. Shown by report's text,
# CSV, JSON and long CSV of the merged profile (not per thread, nor for one thread), and in
# the HTML Profile's data.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced imbalance "$PSC_SOURCE/tests/e2e/imbalance-prog.c"
record_or_die rec "$T/exp" --functions -- "$T/imbalance" 3 20
grep '^work_ns ' "$T/rec.out" >"$T/truth" || die "the program printed no times: $(cat "$T/rec.out")"
# the truth: (max - sum / 4) / max, 4 traced threads (main and the 3 workers)
want=$(awk '{ s += $3; if ($3 > m) m = $3 } END { printf "%.4f", 100 * (m - s / 4) / m }' "$T/truth")

report_csv_or_die csv "$T/exp"
got=$(csv_get "$T/csv.out" imbalance_pct name=work)
expect_near "$want" "$got" 1.5 "CSV imbalance_pct of work (program's clock: $want)"
expect_near 75 "$(csv_get "$T/csv.out" imbalance_pct name=main)" 0.001 \
	"main: one thread of four: (max - max/4)/max"
run text "$PERFSCOPE" report "$T/exp"
expect_grep " imbalance " "$T/text.out" "the text report's column"
run json "$PERFSCOPE" report "$T/exp" --json
jgot=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([f["imbalance_pct"] for f in d["functions"] if f["name"]=="work"][0])' "$T/json.out")
expect_near "$want" "$jgot" 1.5 "JSON imbalance_pct of work"
run long "$PERFSCOPE" report "$T/exp" --format long
expect_grep "work,all," "$T/long.out" "the long CSV's work rows"
lgot=$(awk -F, '$1 == "work" && $(NF-1) == "imbalance_pct" { print $NF }' "$T/long.out")
expect_eq "$got" "$lgot" "long CSV's value equals the CSV cell"
run thread "$PERFSCOPE" report "$T/exp" --by thread --csv
expect_no_grep "imbalance_pct" "$T/thread.out" "per thread: no imbalance column"
# one traced thread: nothing to compare
build_traced single "$PSC_SOURCE/examples/fib.c"
record_or_die rec1 "$T/one" --functions -- "$T/single" 10
run one "$PERFSCOPE" report "$T/one" --csv
expect_no_grep "imbalance_pct" "$T/one.out" "one thread: no imbalance column"
# the HTML Profile's data carries it
run html "$PERFSCOPE" html "$T/exp" -o "$T/r.html"
expect_eq 0 "$RC" "html exit status"
expect_grep '"imbalance_pct"' "$T/r.html" "the HTML report's function data"
finish

#!/usr/bin/env bash
# A forked child returns from the calls its parent had open when it forked (main, outer): its
# stream enters them at the fork, so each process has one call of main and of outer, and no
# exit is without its entry.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced fc "$PSC_SOURCE/tests/e2e/fork-calls-prog.c"

record_or_die rec "$T/exp" --functions -- "$T/fc"
report_csv_or_die rep "$T/exp" --by thread
# calls of NAME in each stream, in the order of the streams' threads
calls() { awk -F, -v n="$1" '$1 == n { printf "%s%s", s, $3; s = " " }' "$T/rep.out"; }
expect_eq "1 1" "$(calls main)" "main: one call in the parent and one in the child"
expect_eq "1 1" "$(calls outer)" "outer: one call in each process"
expect_eq "1 2" "$(calls leaf | tr ' ' '\n' | sort -n | xargs)" "leaf: 1 call in the parent, 2 in the child"
run text "$PERFSCOPE" report "$T/exp"
expect_eq 0 "$RC" "report exit status"
expect_no_grep "without a recorded entry" "$T/text.out" "no exit without its entry in the child"

finish

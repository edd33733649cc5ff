#!/usr/bin/env bash
# fork() while another thread holds the dynamic loader's lock: the child inherits the lock
# held, so the runtime's fork handlers must not take it in the child (it renders the loaded
# objects of the child's maps before the fork instead). Every child returns and is recorded.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced fl "$PSC_SOURCE/tests/e2e/fork-busy-loader-prog.c"

run rec timeout 100 "$PERFSCOPE" record --functions -o "$T/exp" -- "$T/fl" 6
expect_eq 0 "$RC" "fork beside a busy loader: exit status"
expect_grep "children: 6 returned, 0 stuck" "$T/rec.out" "every child returned from fork"
report_csv_or_die rep "$T/exp" --by thread
expect_eq 6 "$(awk -F, '$1 == "child_work" { n += $3 } END { print n + 0 }' "$T/rep.out")" \
	"calls of child_work, one in each child"
expect_eq 6 "$(grep -l '^# object ' "$T"/exp/maps.* | wc -l | awk '{ print $1 - 1 }')" \
	"each child's maps name the objects loaded"

finish

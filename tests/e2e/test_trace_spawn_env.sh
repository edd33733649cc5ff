#!/usr/bin/env bash
# Children started with an environment of their own (posix_spawn, execve) are recorded like
# every other child: the runtime adds its variables and its preload to an environment that
# lacks them, and keeps a child out when that environment sets PERFSCOPE_OUT empty.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced sp "$PSC_SOURCE/tests/e2e/spawn-env-prog.c"

run rec "$PERFSCOPE" record --functions -o "$T/exp" -- "$T/sp"
expect_eq 0 "$RC" "spawn with own environment: exit status"
report_csv_or_die rep "$T/exp" --by thread
expect_eq 3 "$(csv_get "$T/rep.out" calls name=f)" "the parent's calls of f"
# the execve child entered only main before the fork: f had returned (the parent, going on,
# must not lend the child the calls it makes after the fork)
expect_eq 1 "$(awk -F, '$1 == "f"' "$T/rep.out" | wc -l)" "f is called in one process only"
expect_eq "5 7" "$(awk -F, '$1 == "g" { print $3 }' "$T/rep.out" | sort -n | xargs)" \
	"calls of g in the children with environments of their own (not the one kept out)"

finish

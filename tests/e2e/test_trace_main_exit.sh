#!/usr/bin/env bash
# A program whose main thread leaves through pthread_exit ends when its last thread does: the
# runtime's writer thread must not be that last thread (the process never ended under
# record). It ends with status 0, every call recorded.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced me "$PSC_SOURCE/tests/e2e/main-exit-prog.c"

run rec timeout 60 "$PERFSCOPE" record --functions -o "$T/exp" -- "$T/me"
expect_eq 0 "$RC" "main leaves through pthread_exit: record's exit status (124: it never ended)"
expect_grep "worker done" "$T/rec.out" "the worker ran"
report_csv_or_die rep "$T/exp"
expect_eq 1 "$(csv_get "$T/rep.out" calls name=work)" "calls of work"
expect_eq 1 "$(csv_get "$T/rep.out" calls name=main)" "calls of main"
run info "$PERFSCOPE" info "$T/exp" --json
expect_eq exited "$(json_eval "$T/info.out" 'd["processes"][0]["state"]')" "the process exited"

finish

#!/usr/bin/env bash
# A traced program that defines malloc, calloc, realloc, free and write itself, instrumented
# like the rest of it: the runtime never calls the program's allocator (its buffers are
# mapped) and a hook entered from within the runtime's own work returns at once, so the
# program runs as without perfscope and every call is counted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced om "$PSC_SOURCE/tests/e2e/own-malloc-prog.c"

run rec "$PERFSCOPE" record --functions -o "$T/exp" -- "$T/om"
expect_eq 0 "$RC" "own malloc: exit status"
expect_grep "workers: 400 malloc calls" "$T/rec.out" "own malloc: the program's output"
expect_no_grep "no function events" "$T/rec.err" "own malloc: function events were recorded"
run rep "$PERFSCOPE" report "$T/exp" --by thread --csv
expect_eq 0 "$RC" "own malloc: report exit status"
# each worker thread: one call of worker, 100 of malloc
expect_eq "100 100 100 100" "$(awk -F, '$1 == "malloc" && $3 == 100 { printf "%s%s", s, $3; s = " " }' "$T/rep.out")" \
	"own malloc: 100 calls of malloc in each of the 4 workers"
expect_eq 4 "$(awk -F, '$1 == "worker" && $3 == 1' "$T/rep.out" | wc -l)" "own malloc: 4 workers"

finish

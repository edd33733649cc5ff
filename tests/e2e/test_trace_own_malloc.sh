#!/usr/bin/env bash
# A traced program that defines malloc, calloc, realloc, free and write itself, instrumented
# like the rest of it: the runtime never calls the program's allocator (its buffers are
# mapped) and a hook entered from within the runtime's own work returns at once, so the
# program runs as without perfscope and every call is counted. The program counts the calls
# of its malloc before main and inside fork(): as many as without perfscope, but the one of
# pthread_create for the runtime's writer thread.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced om "$PSC_SOURCE/tests/e2e/own-malloc-prog.c"
if [ "${PSC_SANITIZE:-OFF}" = ON ]; then
	# the sanitized runtime needs the ASan runtime in the program, and that one calls the
	# program's malloc while it starts, before the program can run
	env LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)" \
		ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 "$T/om" >/dev/null 2>&1 ||
		skip "the ASan runtime alone cannot run a program that defines malloc"
fi

run plain "$T/om"
expect_eq 0 "$RC" "own malloc without perfscope: exit status"
run rec "$PERFSCOPE" record --functions -o "$T/exp" -- "$T/om"
expect_eq 0 "$RC" "own malloc: exit status"
expect_grep "workers: 400 malloc calls" "$T/rec.out" "own malloc: the program's output"
expect_no_grep "no function events" "$T/rec.err" "own malloc: function events were recorded"
# one more: the C library's pthread_create allocates the TLS vector of the runtime's writer
# thread with the program's calloc (elf/dl-tls.c), which no caller of pthread_create avoids
plain=$(sed -n 's/^malloc calls before main: //p' "$T/plain.out")
expect_eq "malloc calls before main: $((plain + 1))" "$(grep 'before main' "$T/rec.out")" \
	"own malloc: the runtime calls no malloc of the program before main (but pthread_create's)"
expect_eq "malloc calls in fork: 0" "$(grep 'in fork' "$T/rec.out")" \
	"own malloc: the runtime's fork handlers call no malloc of the program"
run rep "$PERFSCOPE" report "$T/exp" --by thread --csv
expect_eq 0 "$RC" "own malloc: report exit status"
# each worker thread: one call of worker, 100 of malloc
expect_eq "100 100 100 100" "$(awk -F, '$1 == "malloc" && $3 == 100 { printf "%s%s", s, $3; s = " " }' "$T/rep.out")" \
	"own malloc: 100 calls of malloc in each of the 4 workers"
expect_eq 4 "$(awk -F, '$1 == "worker" && $3 == 1' "$T/rep.out" | wc -l)" "own malloc: 4 workers"

finish

#!/usr/bin/env bash
# A thread's buffers go to the next thread when it ends: 1,000 short threads, 4 at a time,
# make at most 5 buffers (the main thread's and one per thread alive; fewer when a thread ends
# before the next starts), every thread's stream and every call is there, and
# the program's peak memory stays far below what 1,000 pairs of 1 MiB buffers would take.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_traced st "$PSC_SOURCE/tests/e2e/short-threads-prog.c"

run rec "$PERFSCOPE" record --functions -o "$T/exp" -- "$T/st" 1000 4
expect_eq 0 "$RC" "1000 threads: exit status"
proc=$(ls "$T"/exp/proc.*.json)
buffers=$(json_eval "$proc" 'd["buffers"]')
expect_cmp "$buffers" "<=" 5 "1000 threads, 4 at a time: buffers made"
expect_cmp "$buffers" ">=" 2 "1000 threads, 4 at a time: buffers made"
expect_eq 1001 "$(ls "$T"/exp/stream.* | wc -l)" "1000 threads: one stream per thread"
report_csv_or_die rep "$T/exp"
expect_eq 1000 "$(csv_get "$T/rep.out" calls name=work)" "1000 threads: calls of work"
# 1,000 threads with buffers of their own would hold 2 GiB; 5 of them, 10 MiB
rss=$(awk '{ print $6 }' "$T/rec.out")
expect_cmp "$rss" "<" 262144 "1000 threads: the program's peak memory in KiB"

finish

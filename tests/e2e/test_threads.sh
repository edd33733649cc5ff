#!/usr/bin/env bash
# Regions and counters are per thread: threads touches 1000 pages in main-work (main thread)
# while a second thread touches 3000 in thread-work; then outer contains 10 calls of inner,
# 100 pages each (outer: 1000 inclusive, 0 exclusive).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/threads
[ -x "$prog" ] || die "$prog was not built"

d=$T/thr
record_or_die rec "$d" -e page-faults -- "$prog"
main_tid=$(sed -n 's/.*main thread (tid \([0-9][0-9]*\)).*/\1/p' "$T/rec.out")
second_tid=$(sed -n 's/^second thread: tid \([0-9][0-9]*\)$/\1/p' "$T/rec.out")
[ -n "$main_tid" ] && [ -n "$second_tid" ] || die "threads did not print its tids: $(cat "$T/rec.out")"

# --by thread: each region on its own thread, with only that thread's faults
report_csv_or_die by-thread "$d" --by thread
csv=$T/by-thread.out
tw_tid=$(csv_get "$csv" thread name=thread-work)
mw_tid=$(csv_get "$csv" thread name=main-work)
expect_ne "$mw_tid" "$tw_tid" "thread-work and main-work on different threads"
expect_eq "$second_tid" "$tw_tid" "thread-work on the second thread"
expect_eq "$main_tid" "$mw_tid" "main-work on the main thread"
expect_eq "$main_tid" "$(csv_get "$csv" thread name=outer)" "outer on the main thread"
expect_eq "$main_tid" "$(csv_get "$csv" thread name=inner)" "inner on the main thread"
expect_near 3000 "$(csv_get "$csv" page-faults name=thread-work)" 2 "--by thread: page-faults of thread-work"
expect_near 1000 "$(csv_get "$csv" page-faults name=main-work)" 2 "--by thread: page-faults of main-work"
expect_eq 4 "$(($(wc -l <"$csv") - 1))" "--by thread: one row per region (each on one thread)"

# merged over threads: nesting
report_csv_or_die by-region "$d"
csv=$T/by-region.out
expect_near 3000 "$(csv_get "$csv" page-faults name=thread-work)" 2 "page-faults of thread-work"
expect_near 1000 "$(csv_get "$csv" page-faults name=main-work)" 2 "page-faults of main-work"
expect_eq 10 "$(csv_get "$csv" calls name=inner)" "calls of inner"
expect_near 1000 "$(csv_get "$csv" page-faults name=inner)" 2 "page-faults of inner (10 calls in all)"
expect_eq 1 "$(csv_get "$csv" calls name=outer)" "calls of outer"
expect_near 1000 "$(csv_get "$csv" page-faults name=outer)" 2 "page-faults of outer (inclusive)"
outer_incl=$(csv_get "$csv" incl_ns name=outer)
outer_excl=$(csv_get "$csv" excl_ns name=outer)
inner_incl=$(csv_get "$csv" incl_ns name=inner)
expect_cmp "$outer_excl" '<' "$outer_incl" "outer: exclusive time below inclusive (inner is inside)"
expect_cmp "$inner_incl" '<=' "$outer_incl" "inner's total time within outer's"

# stat counts the whole run, both threads (the second one through inherit)
run stat "$PERFSCOPE" stat -e page-faults --csv -o "$T/stat.csv" -- "$prog"
expect_eq 0 "$RC" "perfscope stat -- threads exit status"
total=$(csv_get "$T/stat.csv" value kind=event name=page-faults)
expect_cmp "$total" '>=' 4000 "perfscope stat: page-faults of both threads (1000 + 3000 + 1000 touched)"
expect_cmp "$total" '>=' 5000 "perfscope stat: page-faults of the whole run (main-work, thread-work, inner)"

finish

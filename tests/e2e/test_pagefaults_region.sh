#!/usr/bin/env bash
# Region counts known in advance: pagewalk -n N writes one byte in each of N fresh pages (huge
# pages off) inside region "walk", so "walk" takes exactly N page faults, and N x R with -r R.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/pagewalk
[ -x "$prog" ] || die "$prog was not built"

for n in 1000 10000 100000; do
	for reps in 1 3; do
		d=$T/pw-$n-$reps
		record_or_die rec-$n-$reps "$d" -e page-faults -- "$prog" -n "$n" -r "$reps"
		expect_grep "expected page faults in region walk: $((n * reps))" "$T/rec-$n-$reps.out" \
			"pagewalk -n $n -r $reps announces its count"
		report_csv_or_die rep-$n-$reps "$d"
		csv=$T/rep-$n-$reps.out
		expect_eq "$reps" "$(csv_get "$csv" calls name=walk)" \
			"pagewalk -n $n -r $reps: calls of region walk"
		expect_near "$((n * reps))" "$(csv_get "$csv" page-faults name=walk)" 2 \
			"pagewalk -n $n -r $reps: page-faults of region walk"
		expect_eq "all" "$(csv_get "$csv" thread name=walk)" \
			"pagewalk -n $n -r $reps: default report merges threads"
		rows=$(($(wc -l <"$csv") - 1))
		expect_eq 1 "$rows" "pagewalk -n $n -r $reps: one region row"
	done
done

# the same count when the walk runs in a second thread: the faults belong to that thread
d=$T/pw-thread
record_or_die rec-t "$d" -e page-faults -- "$prog" -n 10000 -t
tid=$(sed -n 's/^walker tid: \([0-9][0-9]*\)$/\1/p' "$T/rec-t.out")
[ -n "$tid" ] || die "pagewalk -t printed no walker tid"
report_csv_or_die rep-t "$d" --by thread
expect_near 10000 "$(csv_get "$T/rep-t.out" page-faults name=walk)" 2 "pagewalk -t: page-faults of walk"
expect_eq "$tid" "$(csv_get "$T/rep-t.out" thread name=walk)" "pagewalk -t: walk is on the walker thread"

finish

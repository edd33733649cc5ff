#!/usr/bin/env bash
# The page walk from Fortran (module perfscope, psc_region_begin('walk')): region "walk" of
# pagewalk_f N takes exactly N page faults.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

if [ "$PSC_FORTRAN" != "ON" ]; then
	skip "Fortran support is off in this build (PSC_FORTRAN=$PSC_FORTRAN): no gfortran?"
fi
prog=$EX/pagewalk_f
[ -x "$prog" ] || die "$prog was not built although PSC_FORTRAN=ON"

for n in 1000 10000 100000; do
	d=$T/pwf-$n
	record_or_die rec-$n "$d" -e page-faults -- "$prog" "$n"
	expect_grep "expected page faults in region walk: $n" "$T/rec-$n.out" "pagewalk_f $n announces its count"
	report_csv_or_die rep-$n "$d"
	expect_eq 1 "$(csv_get "$T/rep-$n.out" calls name=walk)" "pagewalk_f $n: calls of region walk"
	expect_near "$n" "$(csv_get "$T/rep-$n.out" page-faults name=walk)" 2 \
		"pagewalk_f $n: page-faults of region walk"
done

finish

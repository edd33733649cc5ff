#!/usr/bin/env bash
# test_mpi_errarg.sh - completion calls that fail on an invalid argument (examples/mpi/errarg:
# MPI_Test with a null request pointer, MPI_Testany and MPI_Waitany with a null handle beside a
# pending Irecv, under MPI_ERRORS_RETURN) leave their outputs unset; the hooks set flag and
# index before the call, so the run completes and the pending Irecv stays tracked: its message,
# received afterwards by MPI_Wait, is matched. With hooks that read the outputs as MPI left
# them (the program presets flag = 1, index = 0) MPI_Test's hook dereferenced the null pointer
# (the rank crashed) and Testany/Waitany ended the Irecv (its message unmatched).
# Also: perfscope dump prints the init record's thread level and MPI record version apart.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
prog=$(mpi_prog errarg)

mpi_record rec "$T/out" 2 "$prog"
for call in test testany waitany; do
	got=$(sed -n "s/^rank 1: $call: //p" "$T/rec.out")
	[ -n "$got" ] || die "errarg did not report $call: $(cat "$T/rec.out")"
	expect_ne success "$got" "MPI_$call on an invalid argument failed"
done
expect_grep "rank 1: wait: success received 8 from 0" "$T/rec.out" "the Irecv completed by MPI_Wait"

run traffic "$PERFSCOPE" mpi "$T/out" --traffic --csv
[ "$RC" -eq 0 ] || { show traffic; die "perfscope mpi --traffic exited $RC"; }
expect_eq 1 "$(csv_get "$T/traffic.out" matched sender=0 receiver=1)" "messages matched 0 -> 1"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_sends sender=0 receiver=1)" "unmatched sends"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_recvs sender=0 receiver=1)" "unmatched receives"

run routines "$PERFSCOPE" mpi "$T/out" --routines --csv
[ "$RC" -eq 0 ] || { show routines; die "perfscope mpi --routines exited $RC"; }
for f in Test Testany Waitany Wait Irecv; do
	expect_eq 1 "$(awk -F, -v f="MPI_$f" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["rank"] == 1 && $c["routine"] == f { print $c["calls"] }' "$T/routines.out")" \
		"rank 1: MPI_$f calls"
done

# the init record: rank, size, the thread level MPI_Query_thread gave, the record version
ver=$(sed -n 's/^#define PSC_MPI_RECORD_VERSION *\([0-9]*\).*/\1/p' "$PSC_SOURCE/src/format/format.h")
[ -n "$ver" ] || die "no PSC_MPI_RECORD_VERSION in src/format/format.h"
run dump "$PERFSCOPE" dump "$T/out"
[ "$RC" -eq 0 ] || { show dump; die "perfscope dump exited $RC"; }
for r in 0 1; do
	level=$(sed -n "s/^rank $r: thread level //p" "$T/rec.out")
	expect_eq 1 "$(grep -cE " mpi-init +rank=$r size=2 thread-level=$level version=$ver\$" "$T/dump.out")" \
		"rank $r's init record in perfscope dump"
done
finish

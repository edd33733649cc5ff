#!/usr/bin/env bash
# test_mpi_cancel.sh - a cancellation is recorded only when MPI confirms it (examples/mpi/cancel):
# MPI_Cancel itself has no item; the Wait that completes a request whose cancellation took
# effect has a cancel item instead of its completion; a send whose cancellation failed (Open
# MPI never cancels a send) is an ordinary message, matched by its receive. perfscope mpi
# --traffic then matches every message and lists nothing unmatched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
prog=$(mpi_prog cancel)

mpi_record rec "$T/out" 2 "$prog"
sc=$(sed -n 's/^rank 0: isend cancelled: \([01]\)$/\1/p' "$T/rec.out")
rc=$(sed -n 's/^rank 1: irecv cancelled: \([01]\)$/\1/p' "$T/rec.out")
[ -n "$sc" ] && [ -n "$rc" ] || die "cancel did not say what MPI_Test_cancelled said: $(cat "$T/rec.out")"
expect_eq 1 "$rc" "the cancelled Irecv was cancelled"

run dump "$PERFSCOPE" dump "$T/out"
[ "$RC" -eq 0 ] || die "perfscope dump exited $RC"
# leaves ROUTINE: the leave records of ROUTINE in the dump
leaves() { awk -v f="$1" '$4 == "mpi-leave" && $5 == f' "$T/dump.out"; }
# nmatch PATTERN: lines of stdin matching the extended regular expression PATTERN
nmatch() { awk -v p="$1" '$0 ~ p { n++ } END { print n + 0 }'; }
expect_eq 0 "$(leaves MPI_Cancel | nmatch '\\[')" "items of MPI_Cancel"
expect_eq $((sc + rc)) "$(nmatch '\\[cancel ' <"$T/dump.out")" "cancel items"
expect_eq 0 "$(nmatch 'freed\\]' <"$T/dump.out")" "freed items"
# the Waits: rank 1's has the cancel item of its Irecv; rank 0's one too when its send was
# cancelled, else the send's completion
expect_eq $((1 + sc)) "$(leaves MPI_Wait | nmatch '\\[cancel comm=0 req=[0-9]+\\]$')" "Waits with a cancel item"
expect_eq $((1 - sc)) "$(leaves MPI_Wait | nmatch '\\[isend-done comm=0 req=[0-9]+\\]$')" "Waits completing a send"

run traffic "$PERFSCOPE" mpi "$T/out" --traffic --csv
[ "$RC" -eq 0 ] || { show traffic; die "perfscope mpi --traffic exited $RC"; }
# rank 0 to rank 1: the flag, the 8 bytes and the Isend's 64 unless it was cancelled
expect_eq $((3 - sc)) "$(csv_get "$T/traffic.out" matched sender=0 receiver=1)" "messages matched 0 -> 1"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_sends sender=0 receiver=1)" "unmatched sends"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_recvs sender=0 receiver=1)" "unmatched receives"
expect_eq $((4 + 8 + 64 * (1 - sc))) "$(csv_get "$T/traffic.out" bytes sender=0 receiver=1)" "bytes 0 -> 1"
finish

#!/usr/bin/env bash
# A Fortran 2008 MPI program (`use mpi_f08`, examples/mpi/ring_f08) is traced: Open MPI 4.1's
# f08 procedures call its Fortran internals (ompi_send_f, pmpi_test_ ...), never MPI_Send or
# mpi_send_, so only the wrappers of the f08 symbols (mpi_send_f08_ ...) see these calls.
# ring_f08 on 3 ranks, 3 rounds: per rank 27 messages of 64 bytes to k+1 (per round: Send/Recv
# ring, Isend/Irecv completed by Waitall, by Wait, by Testall, by Test, by Waitany twice, by
# Waitsome, and a persistent receive and send started by Start and by Startall, completed by
# Waitall), then rank 1 sleeps 40 ms and sends one message to rank 0, then Allreduce
# (MPI_IN_PLACE), Bcast, Barrier. Checked: every rank's exact calls and bytes per routine (a
# call recorded twice, by the f08 wrapper and a wrapper of a layer below, would double them;
# Test, Testall and Waitsome poll as often as the rank needed, which it prints), that a
# completion counts the bytes of the receive it completed (64 per round for each completing
# routine) and a Start of the send its 64 bytes, the traffic per pair (persistent messages
# matched too), rank 0's wait of 40 ms for rank 1 (within
# 10 % or 2 ms, and against the program's own clock), and that the wait's call site is the
# program's MPI_Recv line (the wrapper records its caller, not the f08 library).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ "$PSC_FORTRAN" = ON ] || skip "Fortran support is off in this build (PSC_FORTRAN=$PSC_FORTRAN)"
[ -x "$MEX/ring_f08" ] || skip "no mpi_f08 module found at build time ($MEX/ring_f08 not built)"
prog=$MEX/ring_f08
np=3 rounds=3 sleep_ms=40 b=64

# clean_run: the program itself waited about the asked 40 ms in its MPI_Recv
clean_run() {
	local got
	got=$(printed_ns rec "measured wait of rank 0 for rank 1")
	within "$((sleep_ms * 1000000))" "${got:-0}" ||
		{ note "rank 0 really waited ${got:-?} ns for rank 1, not $((sleep_ms * 1000000))" && return 1; }
}
mpi_record_clean rec "$T/out" "$np" clean_run "$prog" "$rounds" "$sleep_ms"
expect_grep "expected messages: $((9 * np * rounds + 1))" "$T/rec.out" "ring_f08 ran $rounds rounds on $np ranks"
# polled COUNT of RANK's ROUTINE (MPI_Test, MPI_Testall, MPI_Waitsome) as the program printed it
polled() {
	sed -n "s/^rank $1: .*$2 \([0-9][0-9]*\).*/\1/p" "$T/rec.out" | head -n 1
}

run routines "$PERFSCOPE" mpi "$T/out" --routines --csv
expect_eq 0 "$RC" "perfscope mpi --routines --csv exit status"
[ "$RC" -eq 0 ] || show routines
# calls: per routine "CALLS BYTES" for every rank; rank 1 sends one more, rank 0 receives one more
routine_row() { # RANK ROUTINE CALLS BYTES
	expect_eq "$3" "$(csv_get "$T/routines.out" calls rank="$1" routine="$2")" "rank $1: $2 calls"
	expect_eq "$4" "$(csv_get "$T/routines.out" bytes rank="$1" routine="$2")" "rank $1: $2 bytes"
}
for ((k = 0; k < np; k++)); do
	s=$rounds r=$rounds
	[ "$k" -eq 1 ] && s=$((rounds + 1))
	[ "$k" -eq 0 ] && r=$((rounds + 1))
	routine_row "$k" MPI_Send "$s" $((s * b))
	routine_row "$k" MPI_Recv "$r" $((r * b))
	routine_row "$k" MPI_Isend $((6 * rounds)) $((6 * rounds * b))
	routine_row "$k" MPI_Irecv $((6 * rounds)) 0
	routine_row "$k" MPI_Waitall $((3 * rounds)) $((3 * rounds * b))
	routine_row "$k" MPI_Wait $((2 * rounds)) $((rounds * b))
	routine_row "$k" MPI_Waitany $((2 * rounds)) $((rounds * b))
	for p in MPI_Test MPI_Testall MPI_Waitsome; do
		n=$(polled "$k" "$p")
		[ -n "$n" ] || die "ring_f08 did not print rank $k's $p count: $(cat "$T/rec.out")"
		# at least one call per request completed: 2 per round (Testall and Waitsome: 1)
		expect_cmp "$n" ">=" "$rounds" "rank $k: $p calls printed"
		routine_row "$k" "$p" "$n" $((rounds * b))
	done
	routine_row "$k" MPI_Send_init 1 0
	routine_row "$k" MPI_Recv_init 1 0
	routine_row "$k" MPI_Start $((2 * rounds)) $((rounds * b))
	routine_row "$k" MPI_Startall "$rounds" $((rounds * b))
	routine_row "$k" MPI_Request_free 2 0
	routine_row "$k" MPI_Barrier 3 0
	routine_row "$k" MPI_Allreduce 1 8
	routine_row "$k" MPI_Bcast 1 "$b"
	routine_row "$k" MPI_Init 1 0
	routine_row "$k" MPI_Finalize 1 0
	# nothing else was recorded: 20 routines per rank
	expect_eq 20 "$(awk -F, -v k="$k" '$1 == k' "$T/routines.out" | wc -l)" "rank $k: routines recorded"
done

run traffic "$PERFSCOPE" mpi "$T/out" --traffic --csv
expect_eq 0 "$RC" "perfscope mpi --traffic --csv exit status"
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	expect_eq $((9 * rounds)) "$(csv_get "$T/traffic.out" matched sender="$k" receiver="$j")" "matched messages $k -> $j"
	expect_eq $((9 * rounds * b)) "$(csv_get "$T/traffic.out" bytes sender="$k" receiver="$j")" "bytes $k -> $j"
done
expect_eq 1 "$(csv_get "$T/traffic.out" matched sender=1 receiver=0)" "matched messages 1 -> 0"

mpi_waits waits "$T/out"
exp=$(printed_ns rec "expected wait of rank 0 for rank 1")
expect_eq $((sleep_ms * 1000000)) "$exp" "ring_f08's expectation"
meas=$(printed_ns rec "measured wait of rank 0 for rank 1")
got=$(wait_cell "$T/waits.out" 0 1)
expect_wait "$meas" "$got" "wait of rank 0 for rank 1, against the program's own clock"
[ "$MPI_CLEAN" = 1 ] && expect_wait "$exp" "$got" "wait of rank 0 for rank 1"

# the Late Sender's worst site: the program's MPI_Recv of tag 99
line=$(grep -n 'MPI_ANY_SOURCE, 99' "$PSC_SOURCE/examples/mpi/ring_f08.f90" | cut -d: -f1)
run patterns "$PERFSCOPE" mpi "$T/out" --patterns --csv
expect_eq 0 "$RC" "perfscope mpi --patterns --csv exit status"
expect_eq "ring_f08.f90:$line:MPI_Recv" "$(awk -F, '$1 == "late_sender" && $2 == 0 && NF == 8 {
	if ($7 > w) { w = $7; n = split($4, p, "/"); s = p[n] ":" $5 ":" $6 } } END { print s }' \
	"$T/patterns.out")" "rank 0's worst Late Sender site"

finish

#!/usr/bin/env bash
# Wait at Barrier (examples/mpi/barrier.c): rank r enters each barrier r x 20 ms after the
# previous one ended, 3 times, so rank r waits 3 x (max - own) = 3 x (N-1-r) x 20 ms in
# collectives (within 10 % or 2 ms); the ranks exchange no messages, so every point-to-point
# cell is zero. --patterns names the barrier in the loop as the worst call site. The program
# notes its arrival times (-m): perfscope's waits must match those always, and the nominal
# ones whenever the machine let the program keep to them (a stretched run is recorded again).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
barrier=$(mpi_prog barrier)
np=4

# barrier_clean: the program's own waits (its marks) are the ones it was asked for
barrier_clean() {
	local r exp got ok=0
	marks_barrier "$T/bar.marks" "$np" >"$T/measured"
	for ((r = 0; r < np; r++)); do
		exp=$(printed_ns rec "expected barrier wait of rank $r")
		got=$(awk -v r="$r" '$1 == r { print $2 }' "$T/measured")
		if ! within "$exp" "${got:-0}"; then
			note "rank $r really waited ${got:-0} ns in barriers, not $exp"
			ok=1
		fi
	done
	return "$ok"
}

mpi_record_clean rec "$T/bar" "$np" barrier_clean "$barrier" -d 20 -n 3 -m "$T/bar.marks"
mpi_waits waits "$T/bar"
csv=$T/waits.out
for ((r = 0; r < np; r++)); do
	exp=$(printed_ns rec "expected barrier wait of rank $r")
	expect_eq $((3 * (np - 1 - r) * 20000000)) "$exp" "barrier's own expectation for rank $r"
	meas=$(awk -v r="$r" '$1 == r { print $2 }' "$T/measured")
	got=$(wait_cell "$csv" "$r" collective)
	expect_wait "${meas:-0}" "$got" "wait at barrier of rank $r, against the program's own clock"
	if [ "$MPI_CLEAN" = 1 ]; then
		expect_wait "$exp" "$got" "wait at barrier of rank $r"
		expect_wait "$exp" "$(wait_cell "$csv" "$r" total)" "total wait of rank $r"
	fi
	expect_eq "$got" "$(wait_cell "$csv" "$r" total)" "total wait of rank $r: its barrier waits"
	for ((k = 0; k < np; k++)); do
		expect_eq 0 "$(wait_cell "$csv" "$r" "$k")" "wait of rank $r for rank $k (no messages)"
	done
done

# --patterns: the waits are Wait at Barrier, and the worst call site of ranks 0-2 is the
# barrier inside barrier.c's loop (function main, its line), 3 calls each
run patterns "$PERFSCOPE" mpi "$T/bar" --patterns --csv
expect_eq 0 "$RC" "perfscope mpi --patterns --csv exit status"
awk 'NF == 0 { part++; next } { print > (FILENAME "." (part ? "sites" : "totals")) }' "$T/patterns.out"
expect_eq 0 "$(csv_get "$T/patterns.out.totals" wait_ns pattern=late_sender rank=all)" "no Late Sender"
expect_eq 12 "$(csv_get "$T/patterns.out.totals" calls pattern=wait_barrier rank=all)" "barrier calls that waited: 4 barriers, all ranks but the last to arrive"
line=$(grep -n 'MPI_Barrier(MPI_COMM_WORLD);' "$PSC_SOURCE/examples/mpi/barrier.c" | sed -n 2p | cut -d: -f1)
for r in 0 1 2; do
	expect_eq "$line" "$(csv_get "$T/patterns.out.sites" line pattern=wait_barrier rank="$r")" "rank $r: worst barrier's line"
	expect_eq main "$(csv_get "$T/patterns.out.sites" function pattern=wait_barrier rank="$r")" "rank $r: worst barrier's function"
	expect_eq 3 "$(csv_get "$T/patterns.out.sites" calls pattern=wait_barrier rank="$r")" "rank $r: calls of the worst barrier"
	expect_eq "$PSC_SOURCE/examples/mpi/barrier.c" "$(csv_get "$T/patterns.out.sites" file pattern=wait_barrier rank="$r")" "rank $r: worst barrier's file"
done

finish

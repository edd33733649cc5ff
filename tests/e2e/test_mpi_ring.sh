#!/usr/bin/env bash
# A ring of late senders (examples/mpi/ring.c): rank k sleeps T_k before sending to rank k+1,
# which already waits in MPI_Recv. The wait matrix must show rank k+1 waiting for rank k by
# T_k (within 10 % or 2 ms) and every other pair of ranks near zero (under 2 ms). Once with 4
# ranks (T_k = 10 (k+1) ms) and once with 3 ranks and a list of times over two iterations.
# The program also notes the time just before each MPI_Send and MPI_Recv (-m): perfscope's
# waits must match those always, and T_k whenever the machine let the program keep to it (a
# run it stretched is recorded again, up to 3 times).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
ring=$(mpi_prog ring)

# ring_clean: the program's own waits of the current run ($name, $np) are its T_k
ring_clean() {
	local k j exp got ok=0
	marks_p2p "$T/$name.marks" "$np" >"$T/$name.measured"
	for ((k = 0; k < np; k++)); do
		j=$(((k + 1) % np))
		exp=$(printed_ns "rec-$name" "expected wait of rank $j for rank $k")
		got=$(awk -v j="$j" -v k="$k" '$1 == j && $2 == k { print $3 }' "$T/$name.measured")
		if ! within "$exp" "${got:-0}"; then
			note "$name: rank $j really waited ${got:-0} ns for rank $k, not $exp"
			ok=1
		fi
	done
	return "$ok"
}

check_ring() { # NAME NP ARGS..: record the ring and check its wait matrix
	local k j i exp got meas prev p2p
	name=$1 np=$2
	shift 2
	mpi_record_clean "rec-$name" "$T/$name" "$np" ring_clean "$ring" -m "$T/$name.marks" "$@"
	mpi_waits "waits-$name" "$T/$name"
	for ((k = 0; k < np; k++)); do
		j=$(((k + 1) % np))
		exp=$(printed_ns "rec-$name" "expected wait of rank $j for rank $k")
		[ -n "$exp" ] || die "ring did not print its expectation for rank $j: $(cat "$T/rec-$name.out")"
		got=$(wait_cell "$T/waits-$name.out" "$j" "$k")
		meas=$(awk -v j="$j" -v k="$k" '$1 == j && $2 == k { print $3 }' "$T/$name.measured")
		expect_wait "${meas:-0}" "$got" "$name: wait of rank $j for rank $k, against the program's own clock"
		[ "$MPI_CLEAN" = 1 ] && expect_wait "$exp" "$got" "$name: wait of rank $j for rank $k"
	done
	for ((j = 0; j < np; j++)); do
		prev=$(((j + np - 1) % np))
		for ((i = 0; i < np; i++)); do
			[ "$i" -eq "$prev" ] && continue
			got=$(wait_cell "$T/waits-$name.out" "$j" "$i")
			expect_near 0 "$got" 2000000 "$name: wait of rank $j for rank $i (not its sender)"
		done
		got=$(wait_cell "$T/waits-$name.out" "$j" total)
		p2p=$(wait_cell "$T/waits-$name.out" "$j" "$prev")
		expect_cmp "$got" '>=' "$p2p" "$name: total wait of rank $j at least its wait for rank $prev"
	done
	# no more rows than the ranks, their peers, 'collective' and 'total' can make
	expect_cmp "$(($(wc -l <"$T/waits-$name.out") - 1))" '<=' $((np * (np + 2))) \
		"$name: rows of the wait matrix"
}

check_ring four 4 -b 10
check_ring three 3 -t 15,5,25 -n 2
# the expectations themselves: 2 iterations of 15, 5 and 25 ms
expect_eq 30000000 "$(printed_ns rec-three "expected wait of rank 1 for rank 0")" "ring -t 15,5,25 -n 2: rank 1's expectation"
expect_eq 50000000 "$(printed_ns rec-three "expected wait of rank 0 for rank 2")" "ring -t 15,5,25 -n 2: rank 0's expectation"

finish

#!/usr/bin/env bash
# Non-blocking all-to-all (examples/mpi/alltoall_nb.c) on 6 ranks, 2 iterations: every rank
# posts Irecv from all, ranks 1, 2 and 3 sleep 20, 40 and 60 ms, every rank posts Isend to all
# and waits in one Waitall. Traffic: each ordered pair 2 messages of 1024 bytes, all matched.
# Waits: rank r waits 2 x (60 - D_r) ms for the ranks later than itself (within 10 % or 2 ms)
# and nothing for the others, and rank 3, the latest, waits for no rank. The program notes
# the times of its first Isend and its Waitall (-m): perfscope's waits must match those
# always, and the nominal ones whenever the machine let the program keep to them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
a2a=$(mpi_prog alltoall_nb)
np=6
late=(0 20 40 60 0 0)

# a2a_clean: the program's own waits (its marks) are the ones it was asked for
a2a_clean() {
	local r exp got ok=0
	marks_waitall "$T/a2a.marks" "$np" >"$T/measured"
	for ((r = 0; r < np; r++)); do
		exp=$(printed_ns rec "expected total wait of rank $r")
		got=$(awk -v r="$r" '$1 == r { print $2 }' "$T/measured")
		if ! within "$exp" "${got:-0}"; then
			note "rank $r really waited ${got:-0} ns in MPI_Waitall, not $exp"
			ok=1
		fi
	done
	return "$ok"
}

mpi_record_clean rec "$T/a2a" "$np" a2a_clean "$a2a" -n 2 -s 1024 -m "$T/a2a.marks"
for r in 1 2 3; do
	expect_grep "late rank $r: ${late[r]} ms" "$T/rec.out" "alltoall_nb announces late rank $r"
done

# traffic: every ordered pair
run traffic "$PERFSCOPE" mpi "$T/a2a" --traffic --csv
expect_eq 0 "$RC" "perfscope mpi --traffic --csv exit status"
[ "$RC" -eq 0 ] || show traffic
tcsv=$T/traffic.out
for ((s = 0; s < np; s++)); do
	for ((d = 0; d < np; d++)); do
		[ "$s" -eq "$d" ] && continue
		expect_eq 2 "$(csv_get "$tcsv" messages sender="$s" receiver="$d")" "messages $s -> $d"
		expect_eq 2048 "$(csv_get "$tcsv" bytes sender="$s" receiver="$d")" "bytes $s -> $d"
	done
done

mpi_waits waits "$T/a2a"
csv=$T/waits.out
for ((r = 0; r < np; r++)); do
	exp=$(((60 - late[r]) * 2 * 1000000))
	expect_eq "$exp" "$(printed_ns rec "expected total wait of rank $r")" "alltoall_nb's expectation for rank $r"
	on_late=0
	for ((k = 0; k < np; k++)); do
		[ "$k" -eq "$r" ] && continue
		got=$(wait_cell "$csv" "$r" "$k")
		if [ "${late[k]}" -gt "${late[r]}" ]; then
			on_late=$((on_late + got))
		else
			expect_near 0 "$got" 2000000 "wait of rank $r for rank $k (not later than $r)"
		fi
	done
	meas=$(awk -v r="$r" '$1 == r { print $2 }' "$T/measured")
	expect_wait "${meas:-0}" "$on_late" "wait of rank $r for the ranks later than itself, against the program's own clock"
	[ "$MPI_CLEAN" = 1 ] && expect_wait "$exp" "$on_late" "wait of rank $r for the ranks later than itself"
	# the total adds the collective waits (the barriers between iterations) to the row
	sum=$(awk -F, -v r="$r" '$1 == r && $2 != "total" { s += $3 } END { printf "%.0f", s }' "$csv")
	expect_near "$sum" "$(wait_cell "$csv" "$r" total)" 1000 "total wait of rank $r: its row and collective summed"
done
# the latest rank is the one everybody waits for last: ranks 0, 4 and 5 wait for rank 3
for r in 0 4 5; do
	expect_cmp "$(wait_cell "$csv" "$r" 3)" '>' 2000000 "rank $r waits for rank 3, the latest"
done

finish

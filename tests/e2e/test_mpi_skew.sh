#!/usr/bin/env bash
# Clock alignment against a known skew: the ring of late senders on 4 ranks, 3 iterations, with
# PERFSCOPE_CLOCK=monotonic, rank 2's clock shifted by +2 s and running 500 ppm fast
# (PERFSCOPE_TEST_CLOCK_SKEW, given to that rank alone through mpirun's MPMD syntax). Raw,
# rank 3 would receive each of rank 2's 3 messages 2 s before it was sent; aligned, the wait
# matrix shows the true waits (rank k+1 waits 3 T_k = 30 (k+1) ms for rank k, within 10 % or
# 2 ms). The program's own clock, which the skew does not touch, notes the times before each
# MPI_Send and MPI_Recv (-m): perfscope's waits must match them always, and 3 T_k whenever the
# machine let the program keep to it. Violation counts: on the ranks' own clocks at least the 3
# messages of rank 2 to rank 3; after alignment a few may remain on a loaded machine (the
# offsets are measured to about a microsecond, the messages arrive as fast), so the count is
# bounded by 3, and what tells a working alignment from a broken one is the size of the
# correction the rest needed: under 200 ms (it would be about 2 s without the alignment).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
ring=$(mpi_prog ring)
np=4
iters=3
export PERFSCOPE_CLOCK=monotonic

# skew_clean: the program's own waits (its marks) are the ones it was asked for
skew_clean() {
	local k j got ok=0
	marks_p2p "$T/skew.marks" "$np" >"$T/measured"
	for ((k = 0; k < np; k++)); do
		j=$(((k + 1) % np))
		got=$(awk -v j="$j" -v k="$k" '$1 == j && $2 == k { print $3 }' "$T/measured")
		if ! within $((iters * (k + 1) * 10000000)) "${got:-0}"; then
			note "rank $j really waited ${got:-0} ns for rank $k, not $((iters * (k + 1) * 10000000))"
			ok=1
		fi
	done
	return "$ok"
}

# the ranks of mpirun's MPMD contexts are numbered in order: the second context is rank 2
m=$T/skew.marks
ringargs=(-b 10 -n "$iters" -m "$m")
mpi_record_clean rec "$T/skew" 2 skew_clean "$ring" "${ringargs[@]}" : \
	-np 1 -x PERFSCOPE_TEST_CLOCK_SKEW=2000000000:500 "$ring" "${ringargs[@]}" : \
	-np 1 "$ring" "${ringargs[@]}"
# the skew was there: rank 2's measured offsets are -2 s (+- 5 ms: its clock gains 0.5 ms a
# second, and a loaded machine may take seconds to finalize), the others' under 1 ms
run dump "$PERFSCOPE" dump "$T/skew"
expect_eq 0 "$RC" "perfscope dump exit status"
awk '/^# .*stream/ { rank = $0; sub(/.* rank /, "", rank); sub(/;.*/, "", rank) }
	/mpi-clock/ { o = $0; sub(/.*offset_ns=/, "", o); sub(/ .*/, "", o); print rank, o }' \
	"$T/dump.out" >"$T/offsets"
expect_eq 8 "$(wc -l <"$T/offsets")" "two clock measurements per rank"
while read -r rank off; do
	if [ "$rank" = 2 ]; then
		expect_near -2000000000 "$off" 5000000 "measured clock offset of rank 2 (skewed)"
	else
		expect_near 0 "$off" 1000000 "measured clock offset of rank $rank"
	fi
done <"$T/offsets"

mpi_waits waits "$T/skew"
csv=$T/waits.out
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	got=$(wait_cell "$csv" "$j" "$k")
	meas=$(awk -v j="$j" -v k="$k" '$1 == j && $2 == k { print $3 }' "$T/measured")
	expect_wait "${meas:-0}" "$got" "skewed: wait of rank $j for rank $k, against the program's own clock"
	[ "$MPI_CLEAN" = 1 ] && expect_wait $((iters * (k + 1) * 10000000)) "$got" "skewed: wait of rank $j for rank $k"
	for ((i = 0; i < np; i++)); do
		[ "$i" -eq "$k" ] && continue
		expect_near 0 "$(wait_cell "$csv" "$j" "$i")" 2000000 "skewed: wait of rank $j for rank $i"
	done
done

run json "$PERFSCOPE" mpi "$T/skew" --json
expect_eq 0 "$RC" "perfscope mpi --json exit status"
expect_eq true "$(json_eval "$T/json.out" 'd["clock_aligned"]')" "clocks aligned"
expect_eq true "$(json_eval "$T/json.out" 'd["corrected"]')" "causality violations corrected"
expect_eq 0 "$(json_eval "$T/json.out" 'd["violations_after"]')" "causality violations after correction"
# on the ranks' own clocks each of rank 2's messages to rank 3 left 2 s after rank 3 received it
jv() { json_eval "$T/json.out" "d[\"$1\"]"; }
note "violations: $(jv violations_unaligned) unaligned, $(jv violations_before) aligned," \
	"$(jv violations_after) corrected; largest correction $(jv max_correction_ns) ns"
expect_cmp "$(jv violations_unaligned)" '>=' "$iters" "violations on the ranks' own clocks (rank 2's messages to rank 3)"
expect_cmp "$(jv violations_before)" '<=' "$iters" "violations left after clock alignment"
expect_cmp "$(jv max_correction_ns)" '<' 200000000 "largest causality correction after alignment (2 s if the clocks were not aligned)"
expect_eq 4 "$(json_eval "$T/json.out" 'sum(1 for r in d["ranks"] if r["present"])')" "ranks with data"

finish

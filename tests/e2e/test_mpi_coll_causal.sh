#!/usr/bin/env bash
# Causality of collectives on real runs: examples/mpi/calls_mpi.c (Bcast, Allreduce and
# Barriers on MPI_COMM_WORLD, an Allreduce on a split communicator), calls_more.c (the v/w
# and rooted collectives, scans, non-blocking collectives completed by every routine of the
# Wait and Test families) and icoll.c (Iallreduce completed by MPI_Wait), each on 4 ranks. After the clock alignment and
# the correction no collective call leaves before a rank it depends on entered: JSON
# coll_violations_after is 0 (and not above coll_violations_before); with --no-correction
# the count is left as recorded (after = before); the summary line reports the collectives'
# counts beside the messages'.
# Then a clock error the alignment leaves: examples/mpi/barrier.c (rank r enters each of 3
# barriers r x 20 ms after the previous one ended, rank 3 last) with rank 3's clock running
# 20 % fast (PERFSCOPE_TEST_CLOCK_SKEW through `env` in mpirun's MPMD syntax): its offsets at
# init and finalize differ by more than a clock drifts, so the one at finalize is ignored and
# the drift stays, 12 to 36 ms by the loop's barriers. Ranks 0-2 then seem to leave those
# barriers before rank 3 entered: at most 12 violations (4 barriers x 3 ranks), at least the
# 3 of the last barrier (36 ms of drift; a rank the loaded machine wakes later than the drift
# at an earlier barrier is no violation), none after the correction, with a shift of ms.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
np=4

check_run() {
	local name=$1 dir=$2 before after
	run "$name-json" "$PERFSCOPE" mpi "$dir" --json
	expect_eq 0 "$RC" "$name: perfscope mpi --json exit status"
	before=$(json_eval "$T/$name-json.out" 'd["coll_violations_before"]')
	after=$(json_eval "$T/$name-json.out" 'd["coll_violations_after"]')
	expect_eq 0 "$after" "$name: collective causality violations after correction"
	expect_eq 0 "$(json_eval "$T/$name-json.out" 'd["violations_after"]')" "$name: message causality violations after correction"
	expect_cmp "${before:-x}" ">=" 0 "$name: collective causality violations as recorded"
	note "$name: ${before:-?} collective causality violations as recorded"
	run "$name-raw" "$PERFSCOPE" mpi "$dir" --json --no-correction
	expect_eq 0 "$RC" "$name: perfscope mpi --json --no-correction exit status"
	expect_eq "$before" "$(json_eval "$T/$name-raw.out" 'd["coll_violations_after"]')" "$name: --no-correction leaves the count as recorded"
	run "$name-text" "$PERFSCOPE" mpi "$dir"
	expect_eq 0 "$RC" "$name: perfscope mpi exit status"
	expect_grep "; in collectives $before as recorded, 0 after correction" "$T/$name-text.out" "$name: summary line"
}

mpi_record calls "$T/calls" "$np" "$(mpi_prog calls_mpi)"
check_run calls "$T/calls"
mpi_record more "$T/more" "$np" "$(mpi_prog calls_more)"
check_run more "$T/more"
mpi_record icoll "$T/ic" "$np" "$(mpi_prog icoll)" -d 5 -n 2 -m "$T/ic.marks"
check_run icoll "$T/ic"

barrier=$(mpi_prog barrier)
mpi_record skew "$T/skew" 3 "$barrier" -d 20 -n 3 : \
	-np 1 env PERFSCOPE_TEST_CLOCK_SKEW=0:200000 "$barrier" -d 20 -n 3
check_run skew "$T/skew"
before=$(json_eval "$T/skew-json.out" 'd["coll_violations_before"]')
expect_cmp "${before:-x}" ">=" 3 "skew: collective causality violations as recorded (the last barrier's 3 ranks)"
expect_cmp "${before:-x}" "<=" 12 "skew: collective causality violations as recorded (4 barriers x 3 ranks)"
expect_cmp "$(json_eval "$T/skew-json.out" 'd["max_correction_ns"]')" ">=" 1000000 "skew: largest shift (ms of drift)"
expect_grep "collective calls left before a rank they depend on entered (clock error): corrected, 0 left" "$T/skew-text.out" "skew: caveat"

finish

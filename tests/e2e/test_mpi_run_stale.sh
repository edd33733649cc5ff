#!/usr/bin/env bash
# test_mpi_run_stale.sh - a rank of `mpirun ... perfscope record --mpi -o DIR` never joins an
# old run's DIR/meta.json that carries its nonce (PERFSCOPE_MPI_RUN) too: a nonce reused from
# run to run (a user's, without a time) accepts a meta.json written at most 10 s before the
# rank started; a launcher's nonce ("HEX-EPOCH") one written at most 10 s before that launch.
# The ranks are faked with OMPI_COMM_WORLD_RANK (no mpirun needed) and the old meta.json is
# aged with touch -d, so nothing waits 30 s: rank 1 starts first, must still be waiting a
# second later, and goes ahead with the new run's meta.json once rank 0 has written it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
[ -f "$PSC_BUILD/libperfscope-mpi.so" ] || skip "libperfscope-mpi.so was not built (no MPI)"
unset PMIX_NAMESPACE OMPI_MCA_ess_base_jobid SLURM_JOB_ID SLURM_STEP_ID PMIX_RANK PMI_RANK \
	OMPI_COMM_WORLD_RANK PERFSCOPE_MPI_RUN PERFSCOPE_OUT
now=$(date +%s)

# old_run NAME NONCE AGE_S: rank 0 of an old run with NONCE wrote $T/NAME/meta.json (its
# command names "old"), AGE_S seconds before now
old_run() {
	run "$1.old" env OMPI_COMM_WORLD_RANK=0 PERFSCOPE_MPI_RUN="$2" "$PERFSCOPE" record --mpi \
		-o "$T/$1" -- true old
	[ "$RC" -eq 0 ] || { show "$1.old"; die "$1: the old run's rank 0 exited $RC"; }
	expect_grep "\"mpi_run\": \"$2\"" "$T/$1/meta.json" "$1: the old run's meta.json"
	# aged from the current time: the user nonce's check is relative to rank 1's start
	touch -d "@$(($(date +%s) - $3))" "$T/$1/meta.json"
}

# rank1 NAME NONCE: start rank 1 of the new run in the background; its command copies the
# meta.json it was let in with to $T/NAME.seen
rank1() {
	rm -f "$T/$1.seen"
	env OMPI_COMM_WORLD_RANK=1 PERFSCOPE_MPI_RUN="$2" timeout -k 5 60 "$PERFSCOPE" record \
		--mpi -o "$T/$1" -- sh -c 'cat "$1/meta.json" >"$2"' sh "$T/$1" "$T/$1.seen" \
		>"$T/$1.rank1" 2>&1 &
	RANK1=$!
}

# rank1_end NAME WHAT: rank 1 ended well and went ahead with the meta.json whose command names WHAT
rank1_end() {
	local rc=0
	wait "$RANK1" || rc=$?
	expect_eq 0 "$rc" "$1: rank 1's exit status ($(cat "$T/$1.rank1"))"
	expect_grep "\"$2\"" "$T/$1.seen" "$1: the meta.json rank 1 went ahead with"
}

# refused NAME NONCE: rank 1 does not take the old meta.json; it takes the new run's
refused() {
	rank1 "$1" "$2"
	sleep 1
	expect_eq no "$([ -e "$T/$1.seen" ] && echo yes || echo no)" \
		"$1: rank 1 went ahead with the old run's meta.json"
	run "$1.new0" env OMPI_COMM_WORLD_RANK=0 PERFSCOPE_MPI_RUN="$2" "$PERFSCOPE" record --mpi \
		--force -o "$T/$1" -- true new
	[ "$RC" -eq 0 ] || { show "$1.new0"; die "$1: the new run's rank 0 exited $RC"; }
	rank1_end "$1" new
}

# accepted NAME NONCE: rank 1 takes the meta.json there at once (no rank 0 comes)
accepted() {
	rank1 "$1" "$2"
	rank1_end "$1" old
}

# a nonce without a time, reused: a meta.json 60 s old is an old run's, 5 s old this run's
old_run user "fixed-nonce" 60
refused user "fixed-nonce"
old_run user5 "fixed-nonce" 5
accepted user5 "fixed-nonce"

# a launcher's nonce: launched now, a meta.json 60 s old is an old run's, one 5 s old this run's
launch=0123456789abcdef-$now
old_run launch "$launch" 60
refused launch "$launch"
old_run launch5 "$launch" 5
accepted launch5 "$launch"

# launched an hour ago (a long queue): a meta.json written since then is this run's, even when
# older than the rank's own 10 s
early=fedcba9876543210-$((now - 3600))
old_run early "$early" 60
accepted early "$early"
old_run early2 "$early" 3660
refused early2 "$early"
finish

#!/usr/bin/env bash
# test_mpi_run_nonce.sh - `mpirun ... perfscope record --mpi -o DIR` ranks share DIR only with
# rank 0's record of the same run, told by PERFSCOPE_MPI_RUN ("mpi_run" in meta.json), even
# when the launcher gives no job id and an old run's meta.json was written a moment ago. The
# ranks are faked with OMPI_COMM_WORLD_RANK (no mpirun needed): rank 1 of the new run starts
# first and must wait for rank 0's new meta.json instead of taking the old one. Also: the
# launcher form sets a fresh nonce for its command and writes it; a bad one is refused.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
[ -f "$PSC_BUILD/libperfscope-mpi.so" ] || skip "libperfscope-mpi.so was not built (no MPI)"
unset PMIX_NAMESPACE OMPI_MCA_ess_base_jobid SLURM_JOB_ID SLURM_STEP_ID PMIX_RANK PMI_RANK \
	OMPI_COMM_WORLD_RANK PERFSCOPE_MPI_RUN PERFSCOPE_OUT
dir=$T/out

# an old run, just finished: the same (missing) job id, a fresh meta.json
run old env OMPI_COMM_WORLD_RANK=0 PERFSCOPE_MPI_RUN=old "$PERFSCOPE" record --mpi -o "$dir" -- true
[ "$RC" -eq 0 ] || { show old; die "the old run's rank 0 exited $RC"; }
expect_grep '"mpi_run": "old"' "$dir/meta.json" "the old run's meta.json"

# the new run: rank 1 first; its command copies the meta.json it was let in with
env OMPI_COMM_WORLD_RANK=1 PERFSCOPE_MPI_RUN=new timeout -k 5 60 "$PERFSCOPE" record --mpi \
	-o "$dir" -- sh -c 'cat "$1/meta.json" >"$2"' sh "$dir" "$T/seen" >"$T/rank1.out" 2>&1 &
rank1=$!
sleep 1
run new0 env OMPI_COMM_WORLD_RANK=0 PERFSCOPE_MPI_RUN=new "$PERFSCOPE" record --mpi --force \
	-o "$dir" -- true
[ "$RC" -eq 0 ] || { show new0; die "the new run's rank 0 exited $RC"; }
rc1=0
wait "$rank1" || rc1=$?
expect_eq 0 "$rc1" "the new run's rank 1 exit status ($(cat "$T/rank1.out"))"
expect_grep '"mpi_run": "new"' "$T/seen" "the meta.json rank 1 went ahead with"

# the launcher form: a fresh nonce for its command, written into meta.json
run launcher "$PERFSCOPE" record --mpi -o "$T/l" -- sh -c 'echo "run=$PERFSCOPE_MPI_RUN"'
[ "$RC" -eq 0 ] || { show launcher; die "record --mpi -- sh exited $RC"; }
nonce=$(sed -n 's/^run=\([0-9a-f]\{16\}-[0-9]\{10,\}\)$/\1/p' "$T/launcher.out")
[ -n "$nonce" ] || die "the command saw no nonce: $(cat "$T/launcher.out")"
expect_grep "\"mpi_run\": \"$nonce\"" "$T/l/meta.json" "the launcher's meta.json"
run launcher2 "$PERFSCOPE" record --mpi -o "$T/l2" -- sh -c 'echo "run=$PERFSCOPE_MPI_RUN"'
expect_ne "$nonce" "$(sed -n 's/^run=//p' "$T/launcher2.out")" "a second run's nonce"

# a nonce that is not one
run bad env OMPI_COMM_WORLD_RANK=1 'PERFSCOPE_MPI_RUN=a"b' "$PERFSCOPE" record --mpi -o "$T/b" -- true
expect_eq 2 "$RC" "a bad PERFSCOPE_MPI_RUN: exit status"
expect_grep "PERFSCOPE_MPI_RUN=a\"b: give letters" "$T/bad.err" "a bad PERFSCOPE_MPI_RUN: message"
finish

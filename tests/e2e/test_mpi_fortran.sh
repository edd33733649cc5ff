#!/usr/bin/env bash
# A Fortran MPI program is traced: Open MPI's Fortran bindings call PMPI_* directly, so only
# the Fortran wrappers of libperfscope-mpi.so see ring_f's calls. ring_f passes a token round
# a ring of 4 ranks 3 times: 12 messages of 4 bytes, each rank k -> k+1 3 times, and
# MPI_Allreduce and MPI_Barrier once per rank.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ "$PSC_FORTRAN" = ON ] || skip "Fortran support is off in this build (PSC_FORTRAN=$PSC_FORTRAN)"
ring_f=$(mpi_prog ring_f)
np=4

mpi_record rec "$T/rf" "$np" "$ring_f" 3
expect_grep "expected messages: 12" "$T/rec.out" "ring_f ran 3 rounds on 4 ranks"

run traffic "$PERFSCOPE" mpi "$T/rf" --traffic --csv
expect_eq 0 "$RC" "perfscope mpi --traffic --csv exit status"
[ "$RC" -eq 0 ] || show traffic
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	expect_eq 3 "$(csv_get "$T/traffic.out" messages sender="$k" receiver="$j")" "messages $k -> $j"
	expect_eq 12 "$(csv_get "$T/traffic.out" bytes sender="$k" receiver="$j")" "bytes $k -> $j"
done

run routines "$PERFSCOPE" mpi "$T/rf" --routines --csv
expect_eq 0 "$RC" "perfscope mpi --routines --csv exit status"
[ "$RC" -eq 0 ] || show routines
for ((k = 0; k < np; k++)); do
	expect_eq 3 "$(csv_get "$T/routines.out" calls rank="$k" routine=MPI_Send)" "rank $k: MPI_Send calls"
	expect_eq 3 "$(csv_get "$T/routines.out" calls rank="$k" routine=MPI_Recv)" "rank $k: MPI_Recv calls"
	expect_eq 1 "$(csv_get "$T/routines.out" calls rank="$k" routine=MPI_Allreduce)" "rank $k: MPI_Allreduce calls"
	expect_eq 1 "$(csv_get "$T/routines.out" calls rank="$k" routine=MPI_Barrier)" "rank $k: MPI_Barrier calls"
done

finish

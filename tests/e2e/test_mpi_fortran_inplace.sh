#!/usr/bin/env bash
# test_mpi_fortran_inplace.sh - Fortran MPI_Alltoallw with MPI_IN_PLACE (examples/mpi/
# inplace_f): MPI ignores the send types then, and the program passes an array it never
# allocated for them; the Fortran wrapper must not read it. The run completes and each
# rank's Alltoallw item says it sent and received 4 bytes per rank.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ "$PSC_FORTRAN" = ON ] || skip "Fortran support is off in this build (PSC_FORTRAN=$PSC_FORTRAN)"
prog=$(mpi_prog inplace_f)
np=2

mpi_record rec "$T/out" "$np" "$prog"
expect_grep "alltoallw in place: $((4 * np)) bytes" "$T/rec.out" "inplace_f ran"
run dump "$PERFSCOPE" dump "$T/out"
[ "$RC" -eq 0 ] || die "perfscope dump exited $RC"
expect_eq "$np" "$(awk -v b="$((4 * np))" '$4 == "mpi-leave" && $5 == "MPI_Alltoallw" &&
	$0 ~ "\\[coll comm=0 root=any sent=" b " received=" b "\\]"' "$T/dump.out" | wc -l)" \
	"Alltoallw items"
finish

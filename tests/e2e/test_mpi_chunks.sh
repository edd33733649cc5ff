#!/usr/bin/env bash
# MPI records across many chunks: with 64 KiB chunks a ring of 400 iterations fills several
# per rank, and every call of every rank is read back (a leave record timestamped before the
# chunk it opened made the reader stop at the first chunk's end).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init

d=$T/ring.exp
run rec timeout "$MPI_TIMEOUT" "$PERFSCOPE" record --mpi --buffer-size 64K -o "$d" -- \
	mpirun -np 4 "$(mpi_prog ring)" -b 0 -n 400
expect_eq 0 "$RC" "record --mpi of 400 ring iterations exits 0"
nchunks=$("$PERFSCOPE" dump "$d" 2>/dev/null | grep -c ' chunk ' || true)
expect_cmp "$nchunks" ">=" 8 "the ranks' streams span several chunks each"

run rt "$PERFSCOPE" mpi "$d" --routines --csv
expect_eq 0 "$RC" "perfscope mpi --routines exits 0"
for r in 0 1 2 3; do
	expect_eq 400 "$(csv_get "$T/rt.out" calls rank=$r routine=MPI_Send)" "rank $r: every MPI_Send read"
	expect_eq 400 "$(csv_get "$T/rt.out" calls rank=$r routine=MPI_Recv)" "rank $r: every MPI_Recv read"
done
expect_no_grep "backwards" "$T/rt.err" "no time going backwards"
finish

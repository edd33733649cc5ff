#!/usr/bin/env bash
# test_mpi_intercomm.sh - MPI_Bcast over an intercommunicator (examples/mpi/intercomm, 4
# ranks): the root (MPI_ROOT) sent 32 bytes, the rest of its group (MPI_PROC_NULL) neither
# sent nor received anything, the other group received 32 bytes each.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
prog=$(mpi_prog intercomm)

mpi_record rec "$T/out" 4 "$prog"
expect_grep "rank 3: root 0, received 32 bytes" "$T/rec.out" "intercomm ran"
run dump "$PERFSCOPE" dump "$T/out"
[ "$RC" -eq 0 ] || die "perfscope dump exited $RC"
awk '/^# / { r = ""; if (match($0, / rank -?[0-9]+;/)) r = substr($0, RSTART + 6, RLENGTH - 7) }
	$4 == "mpi-leave" && $5 == "MPI_Bcast" { s = $0; sub(/.*\[coll comm=[0-9]+ /, "", s); print r, s }' \
	"$T/dump.out" | sort >"$T/bcast"
expect_eq "0 root=any sent=32 received=0]
1 root=any sent=0 received=32]
2 root=any sent=0 received=0]
3 root=any sent=0 received=32]" "$(cat "$T/bcast")" "Bcast items by rank"
finish

#!/usr/bin/env bash
# MPI_THREAD_MULTIPLE: examples/mpi/threads runs 2 threads per rank, each doing N MPI_Sendrecv
# to rank+1 with its own tag, at the same time, on 4 ranks. From `perfscope dump`: every rank's
# init record says thread level 3 (MPI_THREAD_MULTIPLE in Open MPI and MPICH), and each rank has
# exactly 2 streams with MPI_Sendrecv, N calls (enter and leave) in each. From
# `perfscope mpi --traffic`: 2N messages on every pair (k, k+1), all matched, no other pair.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
prog=$(mpi_prog threads)
np=4 n=50

mpi_record rec "$T/thr" "$np" "$prog" -n "$n"
run dump "$PERFSCOPE" dump "$T/thr"
[ "$RC" -eq 0 ] || { show dump; die "perfscope dump exited $RC"; }
# one line per stream: RANK SENDRECV_ENTERS SENDRECV_LEAVES, and RANK init LEVEL per init record
awk '
function flush() { if (s) print r, en, lv; en = lv = 0 }
/^# / { flush(); s = 1; r = "?"; if (match($0, / rank -?[0-9]+;/)) r = substr($0, RSTART + 6, RLENGTH - 7) }
$4 == "mpi-enter" && $5 == "MPI_Sendrecv" { en++ }
$4 == "mpi-leave" && $5 == "MPI_Sendrecv" { lv++ }
$4 == "mpi-init" { for (i = 5; i <= NF; i++) if ($i ~ /^thread-level=/) { sub("thread-level=", "", $i); print r, "init", $i } }
END { flush() }' "$T/dump.out" >"$T/streams"
for ((r = 0; r < np; r++)); do
	expect_eq 3 "$(awk -v r="$r" '$1 == r && $2 == "init" { print $3 }' "$T/streams")" \
		"rank $r: thread level in the init record"
	expect_eq "$n $n
$n $n" "$(awk -v r="$r" '$1 == r && $2 != "init" && $2 > 0 { print $2, $3 }' "$T/streams")" \
		"rank $r: streams with MPI_Sendrecv (enters, leaves)"
	expect_eq 0 "$(awk -v r="$r" '$1 == r && $2 != "init" && $2 == 0 && $3 > 0' "$T/streams" | wc -l)" \
		"rank $r: leaves of MPI_Sendrecv without enters"
done

run traffic "$PERFSCOPE" mpi "$T/thr" --traffic --csv
[ "$RC" -eq 0 ] || { show traffic; die "perfscope mpi --traffic exited $RC"; }
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	expect_eq $((2 * n)) "$(csv_get "$T/traffic.out" messages sender="$k" receiver="$j")" "messages $k -> $j"
	expect_eq $((2 * n)) "$(csv_get "$T/traffic.out" matched sender="$k" receiver="$j")" "matched $k -> $j"
	expect_eq $((2 * n * 8)) "$(csv_get "$T/traffic.out" bytes sender="$k" receiver="$j")" "bytes $k -> $j"
done
# the pairs' table, then after a blank line the list of unmatched messages (its header only)
expect_eq $((np + 1)) "$(awk '$0 == "" { exit } { n++ } END { print n + 0 }' "$T/traffic.out")" \
	"traffic rows (header and one per ring pair)"
expect_eq "kind,rank,routine,peer,tag,bytes,time_ns" "$(awk 'b { print } $0 == "" { b = 1 }' "$T/traffic.out")" \
	"no unmatched message listed"

finish

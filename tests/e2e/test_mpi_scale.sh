#!/usr/bin/env bash
# 16 ranks on this machine's few cores (oversubscribed): the job is recorded and every view of
# perfscope mpi analyses it without an error or a warning (but corrected clock error). The ring (T_k = (k+1) ms) gives 16
# messages, rank k+1 waiting for rank k and no other, and 16 x 3 barriers (one per phase and
# the last).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
ring=$(mpi_prog ring)
np=16

mpi_record rec "$T/r16" "$np" "$ring" -b 1
for view in --waits --traffic --routines --patterns --load; do
	run "view$view" "$PERFSCOPE" mpi "$T/r16" "$view" --csv
	expect_eq 0 "$RC" "perfscope mpi $view --csv exit status"
	# the one caveat a sound run may have: messages that the residual clock error (~1 us on
	# 16 ranks sharing 2 CPUs) put before their send, corrected
	grep -v 'messages received before they were sent (clock error): corrected, 0 left' \
		"$T/view$view.err" >"$T/view$view.err.rest" || true
	expect_eq "" "$(cat "$T/view$view.err.rest")" "perfscope mpi $view: no warning on stderr"
	[ "$RC" -eq 0 ] && [ ! -s "$T/view$view.err.rest" ] || show "view$view"
done
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	expect_eq 1 "$(csv_get "$T/view--traffic.out" messages sender="$k" receiver="$j")" "messages $k -> $j"
	expect_eq 3 "$(csv_get "$T/view--routines.out" calls rank="$k" routine=MPI_Barrier)" "rank $k: MPI_Barrier calls"
done
# rank j waits only for rank j-1 (the only one that sends to it); on an oversubscribed
# machine a receiver may reach MPI_Recv after its sender's T_k, so only most of those waits
# are sure to be there
awk -F, -v np="$np" 'NR > 1 && $2 ~ /^[0-9]+$/ && $3 > 0 {
	if ($2 == ($1 + np - 1) % np) ring++; else other++ }
	END { print ring + 0, other + 0 }' "$T/view--waits.out" >"$T/cells"
read -r ring other <"$T/cells"
expect_eq 0 "$other" "waits for a rank that sent nothing to the waiter"
expect_cmp "$ring" '>=' $((np / 2)) "ranks waiting for their sender in the ring"
expect_eq $((np + 1)) "$(cut -d, -f1 "$T/view--waits.out" | sort -u | wc -l)" "the wait matrix has a row per rank (and the header)"

finish

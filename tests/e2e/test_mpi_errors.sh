#!/usr/bin/env bash
# test_mpi_errors.sh - completions that fail under MPI_ERRORS_RETURN (examples/mpi/errret:
# receives too small for their message, completed by Wait, Waitall and a persistent request's
# Wait) leave no stale request behind: a truncated receive still took its message (a recv
# item with the request's id), nothing is "freed" afterwards, and the request handle MPI
# reuses for the next Irecv names that Irecv, not a failed one. Every message is matched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
prog=$(mpi_prog errret)

mpi_record rec "$T/out" 2 "$prog"
t=$(sed -n 's/^rank 1: classes: truncate \([0-9]*\) in_status \([0-9]*\)$/\1 \2/p' "$T/rec.out")
[ -n "$t" ] || die "errret did not finish: $(cat "$T/rec.out")"
read -r trunc instatus <<<"$t"
expect_grep "rank 1: wait: $trunc" "$T/rec.out" "the Irecv's Wait failed with MPI_ERR_TRUNCATE"
expect_grep "rank 1: waitall: $instatus (statuses $trunc 0)" "$T/rec.out" "Waitall: MPI_ERR_IN_STATUS"

run dump "$PERFSCOPE" dump "$T/out"
[ "$RC" -eq 0 ] || die "perfscope dump exited $RC"
# rank 1's request items in order: "KIND TAG REQ"
awk '/^# / { r = ""; if (match($0, / rank -?[0-9]+;/)) r = substr($0, RSTART + 6, RLENGTH - 7) }
	r == 1 && $4 == "mpi-leave" { s = $0; while (match(s, /\[[^]]*\]/)) {
		x = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
		split(x, f, " "); tag = ""; req = ""
		for (i = 2; i in f; i++) { if (f[i] ~ /^tag=/) tag = substr(f[i], 5); if (f[i] ~ /^req=/) req = substr(f[i], 5) }
		print $5, f[1], tag, req } }' "$T/dump.out" >"$T/items"
# every receive names the request posted for its tag
for tag in 3 4 5 6 7; do
	posted=$(awk -v t="$tag" '$2 == "irecv" && $3 == t { print $4 }' "$T/items")
	got=$(awk -v t="$tag" '$2 == "recv" && $3 == t { print $1, $4 }' "$T/items" | tr '\n' ' ')
	[ -n "$posted" ] || die "no Irecv of tag $tag in the dump: $(cat "$T/items")"
	case $tag in
	3 | 4) want="MPI_Wait $posted " ;;
	5 | 6) want="MPI_Waitall $posted " ;;
	7) want="MPI_Wait $posted " ;;
	esac
	expect_eq "$want" "$got" "the receive of tag $tag"
done
expect_eq 0 "$(awk '$2 == "cancel"' "$T/items" | wc -l)" "cancel or freed items"

run traffic "$PERFSCOPE" mpi "$T/out" --traffic --csv
[ "$RC" -eq 0 ] || { show traffic; die "perfscope mpi --traffic exited $RC"; }
expect_eq 5 "$(csv_get "$T/traffic.out" matched sender=0 receiver=1)" "messages matched 0 -> 1"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_sends sender=0 receiver=1)" "unmatched sends"
expect_eq 0 "$(csv_get "$T/traffic.out" unmatched_recvs sender=0 receiver=1)" "unmatched receives"
finish

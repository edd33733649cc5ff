#!/usr/bin/env bash
# Non-blocking collectives through OTF2: examples/mpi/icoll (4 ranks, 2 iterations, rank 3
# starts MPI_Iallreduce 40 ms late) recorded, exported with perfscope export --format otf2,
# and read back:
# - otf2-print shows, without a warning, a NonBlockingCollectiveRequest in each of the 8
#   MPI_Iallreduce calls and a NonBlockingCollectiveComplete (ALLREDUCE on MPI_COMM_WORLD, no
#   root, 8 bytes each way) with the same request in each of the 8 MPI_Wait calls; Python's
#   otf2 counts the same; the blocking barrier before them stays MpiCollectiveBegin/End.
# - perfscope mpi on the archive gives the experiment's waits, routines and traffic to the
#   byte (the archive's clock is in ns): the same Wait at N x N per rank, charged to the 6
#   MPI_Waits of ranks 0-2 as on the experiment, and the same calls and bytes per routine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
require_cmd otf2-print
icoll=$(mpi_prog icoll)
np=4 iters=2 delay=40

mpi_record rec "$T/ic" "$np" "$icoll" -d "$delay" -n "$iters"
run ex "$PERFSCOPE" export "$T/ic" --format otf2 -o "$T/ic.otf2"
expect_eq 0 "$RC" "perfscope export --format otf2" || show ex
expect_grep " $((np * iters + np)) collectives" "$T/ex.err" \
	"export summary: the Iallreduce completions and the barrier"
anchor=$T/ic.otf2/traces.otf2

# ---- what otf2-print and Python's otf2 read ----
run print otf2-print "$anchor"
expect_eq 0 "$RC" "otf2-print exit status"
expect_eq 0 "$(wc -c <"$T/print.err" | tr -d ' ')" "otf2-print says nothing on stderr"
expect_no_grep "WARNING" "$T/print.out" "otf2-print warnings"
req=$T/print.out.req done=$T/print.out.done
grep '^NON_BLOCKING_COLLECTIVE_REQUEST ' "$T/print.out" >"$req" || true
grep '^NON_BLOCKING_COLLECTIVE_COMPLETE ' "$T/print.out" >"$done" || true
expect_eq $((np * iters)) "$(wc -l <"$req" | tr -d ' ')" "otf2-print: a request per MPI_Iallreduce"
expect_eq $((np * iters)) "$(wc -l <"$done" | tr -d ' ')" "otf2-print: a completion per MPI_Wait"
expect_eq $((np * iters)) "$(grep -c 'Operation: ALLREDUCE, Communicator: "MPI_COMM_WORLD" <[0-9]*>, Root: NONE, Sent: 8, Received: 8, Request: [0-9]' "$done")" \
	"otf2-print: each completion is an 8-byte Allreduce on the world"
# every location's requests and completions name the same request ids
ids() { awk '{ print $2, $NF }' "$1" | sort; }
expect_eq "$(ids "$req")" "$(ids "$done")" "otf2-print: each location completes the requests it started"
expect_eq "$np" "$(grep -c '^MPI_COLLECTIVE_END .*Operation: BARRIER' "$T/print.out")" \
	"otf2-print: the barrier is a blocking collective"
PYOTF2=$(python_otf2)
if [ -n "$PYOTF2" ]; then
	"$PYOTF2" -W error - "$anchor" >"$T/py.txt" 2>"$T/py.err" <<'EOF' || fail "python otf2: $(cat "$T/py.err")"
import collections, sys
import otf2
with otf2.reader.open(sys.argv[1]) as r:
    c = collections.Counter(type(ev).__name__ for _, ev in r.events)
    for k in sorted(c):
        print(k, c[k])
EOF
	count_of() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }
	expect_eq $((np * iters)) "$(count_of "$T/py.txt" NonBlockingCollectiveRequest)" "python: NonBlockingCollectiveRequest"
	expect_eq $((np * iters)) "$(count_of "$T/py.txt" NonBlockingCollectiveComplete)" "python: NonBlockingCollectiveComplete"
	expect_eq "$np" "$(count_of "$T/py.txt" MpiCollectiveEnd)" "python: MpiCollectiveEnd (the barrier)"
else
	note "no python3 with the otf2 module: Python's reading not checked"
fi

# ---- perfscope's import: the experiment's analyses ----
for o in waits routines traffic; do
	"$PERFSCOPE" mpi "$T/ic" --$o --all --csv >"$T/dir.$o.csv" 2>/dev/null || fail "mpi $T/ic --$o"
	"$PERFSCOPE" mpi "$anchor" --$o --all --csv >"$T/arch.$o.csv" 2>"$T/arch.$o.err" ||
		fail "mpi $anchor --$o: $(cat "$T/arch.$o.err")"
	PSC_CHECKS=$((PSC_CHECKS + 1))
	if ! cmp -s "$T/dir.$o.csv" "$T/arch.$o.csv"; then
		fail "--$o differs between the experiment and its OTF2 export:"
		diff "$T/dir.$o.csv" "$T/arch.$o.csv" | head -20 >&2 || true
	fi
	expect_no_grep "never completed\|name no communicator\|miss members" "$T/arch.$o.err" \
		"--$o on the archive: every collective complete"
done
# the waits are the Iallreduce's: each early rank's 2 MPI_Waits at N x N, on both sides
for src in "$T/ic" "$anchor"; do
	run pat "$PERFSCOPE" mpi "$src" --patterns --csv
	expect_eq 0 "$RC" "perfscope mpi $src --patterns" || show pat
	awk 'NF == 0 { exit } { print }' "$T/pat.out" >"$T/pat.totals"
	expect_eq $(((np - 1) * iters)) "$(csv_get "$T/pat.totals" calls pattern=wait_nxn rank=all)" \
		"$src: MPI_Waits that waited at N x N"
	for ((r = 0; r < np - 1; r++)); do
		expect_cmp "$(csv_get "$T/pat.totals" wait_ns pattern=wait_nxn rank="$r")" ">" 0 \
			"$src: rank $r waits at N x N"
	done
done
for ((r = 0; r < np; r++)); do
	expect_eq "$iters" "$(csv_get "$T/arch.routines.csv" calls rank="$r" routine=MPI_Iallreduce)" \
		"archive: rank $r's MPI_Iallreduce calls"
	expect_eq $((iters * 16)) "$(csv_get "$T/arch.routines.csv" bytes rank="$r" routine=MPI_Iallreduce)" \
		"archive: rank $r's MPI_Iallreduce bytes (8 sent and 8 received each)"
done

finish

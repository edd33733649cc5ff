#!/usr/bin/env bash
# Non-blocking all-to-all (examples/mpi/alltoall_nb.c) on 6 ranks, 2 iterations: every rank
# posts Irecv from all, ranks 1, 2 and 3 sleep 20, 40 and 60 ms, every rank posts Isend to all
# and waits in one Waitall. Traffic: each ordered pair 2 messages of 1024 bytes, all matched.
# Waits, exactly: every cell of the wait matrix is the Late Sender wait the recorded calls give
# (the run exported to OTF2 and its events read by Python's otf2: each Waitall's time from its
# enter to the enters of the Isends it waited for, split at those ends, as docs/cmd-mpi.md
# defines it), so that a rank the machine descheduled anywhere cannot break the check.
# Nominally: rank r waits 2 x (60 - D_r) ms for the ranks later than itself (within 10 % or
# 2 ms) and nothing for the others, and ranks 0, 4 and 5 wait for rank 3, the latest; checked
# when the recorded calls kept to that schedule (a busy machine may stretch them: the run is
# recorded again, up to 3 times).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
a2a=$(mpi_prog alltoall_nb)
np=6
late=(0 20 40 60 0 0)

PYOTF2=$(python_otf2)

# a2a_trace: the recorded run exported ($T/a2a.otf2) and, from its events, the Late Sender
# wait of each rank R for each peer K in $T/trace, lines "R K NS" for every pair
a2a_trace() {
	rm -rf "$T/a2a.otf2"
	"$PERFSCOPE" export "$T/a2a" --format otf2 -o "$T/a2a.otf2" >"$T/export.log" 2>&1 ||
		die "perfscope export of the recorded run: $(cat "$T/export.log")"
	"$PYOTF2" - "$T/a2a.otf2/traces.otf2" "$np" >"$T/trace" 2>"$T/trace.err" <<'PY' ||
import collections, sys
import otf2

np = int(sys.argv[2])
enter = {}  # location -> enter time of the MPI call it is in
items = collections.defaultdict(list)  # location -> completions of that call
sends = {}  # (src, dst, tag) -> enter of its Isend
isend_of = {}  # (rank, request) -> (dst, tag)
posted = {}  # (rank, request) -> enter of its Irecv
post_of = {}  # (src, dst, tag) -> enter of the Irecv that received it
waitalls = []  # (rank, enter, leave, completions)
with otf2.reader.open(sys.argv[1]) as r:
    for loc, ev in r.events:
        rank = int(loc.group.name.split()[-1])  # "MPI Rank R"
        if isinstance(ev, otf2.events.Enter) and ev.region.name.startswith("MPI_"):
            enter[loc] = ev.time
            items[loc] = []
        elif isinstance(ev, otf2.events.MpiIsend):
            sends[(rank, ev.receiver, ev.msg_tag)] = enter[loc]
            isend_of[(rank, ev.request_id)] = (ev.receiver, ev.msg_tag)
        elif isinstance(ev, otf2.events.MpiIrecvRequest):
            posted[(rank, ev.request_id)] = enter[loc]
        elif isinstance(ev, otf2.events.MpiIrecv):
            post_of[(ev.sender, rank, ev.msg_tag)] = posted[(rank, ev.request_id)]
            items[loc].append(("recv", ev.sender, ev.msg_tag))
        elif isinstance(ev, otf2.events.MpiIsendComplete):
            items[loc].append(("sent", ev.request_id))
        elif isinstance(ev, otf2.events.Leave) and ev.region.name == "MPI_Waitall":
            waitalls.append((rank, enter[loc], ev.time, items[loc]))
cell = collections.Counter()
for rank, w, l, its in waitalls:
    # Late Sender (0): until a sender's Isend; Late Receiver (1): until the receiver posted a
    # message this call completed, unless the send had completed before (eager)
    ends = []
    for it in its:
        if it[0] == "recv":
            s = sends[(it[1], rank, it[2])]
            if s > w:
                ends.append((min(s, l), 0, it[1]))
        else:
            dst, tag = isend_of[(rank, it[1])]
            p = post_of[(rank, dst, tag)]
            if l >= p and p > w:
                ends.append((min(p, l), 1, dst))
    prev = w
    for end, pattern, peer in sorted(ends):
        if end <= prev:
            continue
        if pattern == 0:
            cell[(rank, peer)] += end - prev
        prev = end
for r in range(np):
    for k in range(np):
        print(r, k, cell[(r, k)])
PY
		die "reading the exported run: $(cat "$T/trace.err")"
}
trace_cell() { awk -v r="$1" -v k="$2" '$1 == r && $2 == k { print $3 }' "$T/trace"; }

# a2a_clean: the recorded calls kept to the schedule: each rank's waits for the later ranks
# nominal, for the others under 2 ms
a2a_clean() {
	local r k c exp got ok=0
	a2a_trace
	for ((r = 0; r < np; r++)); do
		exp=$(((60 - late[r]) * 2 * 1000000))
		got=0
		for ((k = 0; k < np; k++)); do
			c=$(trace_cell "$r" "$k")
			if [ "${late[k]}" -gt "${late[r]}" ]; then
				got=$((got + c))
			elif [ "$c" -gt 2000000 ]; then
				note "rank $r really waited $c ns for rank $k, which is not later"
				ok=1
			fi
		done
		if ! within "$exp" "$got"; then
			note "rank $r really waited $got ns for the later ranks, not $exp"
			ok=1
		fi
	done
	return "$ok"
}

if [ -n "$PYOTF2" ]; then
	mpi_record_clean rec "$T/a2a" "$np" a2a_clean "$a2a" -n 2 -s 1024
else
	note "no python3 with the otf2 module: the waits are checked against their nominal values only"
	mpi_record rec "$T/a2a" "$np" "$a2a" -n 2 -s 1024
	MPI_CLEAN=1
fi
for r in 1 2 3; do
	expect_grep "late rank $r: ${late[r]} ms" "$T/rec.out" "alltoall_nb announces late rank $r"
done

# traffic: every ordered pair
run traffic "$PERFSCOPE" mpi "$T/a2a" --traffic --csv
expect_eq 0 "$RC" "perfscope mpi --traffic --csv exit status"
[ "$RC" -eq 0 ] || show traffic
tcsv=$T/traffic.out
for ((s = 0; s < np; s++)); do
	for ((d = 0; d < np; d++)); do
		[ "$s" -eq "$d" ] && continue
		expect_eq 2 "$(csv_get "$tcsv" messages sender="$s" receiver="$d")" "messages $s -> $d"
		expect_eq 2048 "$(csv_get "$tcsv" bytes sender="$s" receiver="$d")" "bytes $s -> $d"
	done
done

mpi_waits waits "$T/a2a"
csv=$T/waits.out
for ((r = 0; r < np; r++)); do
	exp=$(((60 - late[r]) * 2 * 1000000))
	expect_eq "$exp" "$(printed_ns rec "expected total wait of rank $r")" "alltoall_nb's expectation for rank $r"
	on_late=0
	for ((k = 0; k < np; k++)); do
		got=$(wait_cell "$csv" "$r" "$k")
		if [ -n "$PYOTF2" ]; then
			expect_eq "$(trace_cell "$r" "$k")" "$got" "wait of rank $r for rank $k, as the recorded calls give it"
		fi
		[ "$k" -eq "$r" ] && continue
		if [ "${late[k]}" -gt "${late[r]}" ]; then
			on_late=$((on_late + got))
		elif [ "$MPI_CLEAN" = 1 ]; then
			expect_near 0 "$got" 2000000 "wait of rank $r for rank $k (not later than $r)"
		fi
	done
	if [ "$MPI_CLEAN" = 1 ]; then
		expect_wait "$exp" "$on_late" "wait of rank $r for the ranks later than itself"
	fi
	# the total adds the collective waits (the barriers between iterations) to the row
	sum=$(awk -F, -v r="$r" '$1 == r && $2 != "total" { s += $3 } END { printf "%.0f", s }' "$csv")
	expect_near "$sum" "$(wait_cell "$csv" "$r" total)" 1000 "total wait of rank $r: its row and collective summed"
done
# the latest rank is the one everybody waits for last: ranks 0, 4 and 5 wait for rank 3
if [ "$MPI_CLEAN" = 1 ]; then
	for r in 0 4 5; do
		expect_cmp "$(wait_cell "$csv" "$r" 3)" '>' 2000000 "rank $r waits for rank 3, the latest"
	done
fi

finish

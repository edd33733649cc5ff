#!/usr/bin/env bash
# Bad input to perfscope mpi: an experiment without MPI -> one line saying so, exit 2; a rank
# whose streams were removed, or cut short, -> the analysis goes on, exits 0 and names the rank;
# messages it can no longer match are counted, not dropped silently.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
ring=$(mpi_prog ring)
np=4

# an experiment of a program that never called MPI
record_or_die plain "$T/plain" -- "$EX/spin" 0.05
run nompi "$PERFSCOPE" mpi "$T/plain" --waits
expect_eq 2 "$RC" "perfscope mpi on a non-MPI experiment: exit status"
expect_eq 1 "$(wc -l <"$T/nompi.err")" "perfscope mpi on a non-MPI experiment: one line on stderr"
expect_eq 0 "$(wc -c <"$T/nompi.out")" "perfscope mpi on a non-MPI experiment: nothing on stdout"
expect_grep "MPI" "$T/nompi.err" "perfscope mpi on a non-MPI experiment says it is about MPI"

# rank_pid DIR RANK: the pid of the process that was that rank (from its proc.<pid>.json)
rank_pid() {
	local f
	for f in "$1"/proc.*.json; do
		if [ "$(json_eval "$f" 'd["rank"]')" = "$2" ]; then
			json_eval "$f" 'd["pid"]'
			return 0
		fi
	done
	die "no process of rank $2 in $1"
}

mpi_record rec "$T/ring" "$np" "$ring" -b 5 -m "$T/ring.marks"
# the waits the program measured itself (a busy machine stretches its sleeps)
marks_p2p "$T/ring.marks" "$np" >"$T/ring.measured"
measured() { awk -v j="$1" -v k="$2" '$1 == j && $2 == k { print $3 }' "$T/ring.measured"; }
[ -n "$(measured 1 0)" ] && [ -n "$(measured 0 3)" ] || die "ring wrote no marks: $(cat "$T/rec.out")"
cp -a "$T/ring" "$T/missing"
cp -a "$T/ring" "$T/cut"

# rank 2's streams removed: messages 1 -> 2 and 2 -> 3 lose their other side
pid=$(rank_pid "$T/missing" 2)
rm -f "$T/missing"/stream."$pid".*
for view in --waits --traffic --routines; do
	run "missing$view" "$PERFSCOPE" mpi "$T/missing" "$view" --csv
	expect_eq 0 "$RC" "rank 2's streams removed: perfscope mpi $view exit status"
	expect_grep "rank 2" "$T/missing$view.err" "rank 2's streams removed: perfscope mpi $view names the rank"
done
# the messages rank 2 took part in are counted as unmatched, not dropped
expect_eq 1 "$(csv_get "$T/missing--traffic.out" unmatched_sends sender=1 receiver=2)" "rank 2's streams removed: unmatched sends 1 -> 2"
expect_eq 1 "$(csv_get "$T/missing--traffic.out" unmatched_recvs sender=2 receiver=3)" "rank 2's streams removed: unmatched receives 2 -> 3"
expect_eq 1 "$(csv_get "$T/missing--traffic.out" matched sender=0 receiver=1)" "rank 2's streams removed: matched 0 -> 1"
# the other ranks are still analysed: rank 1 waited for rank 0, rank 0 for rank 3
expect_wait "$(measured 1 0)" "$(wait_cell "$T/missing--waits.out" 1 0)" "rank 2's streams removed: wait of rank 1 for rank 0 (the program's own: about 5 ms)"
expect_wait "$(measured 0 3)" "$(wait_cell "$T/missing--waits.out" 0 3)" "rank 2's streams removed: wait of rank 0 for rank 3 (the program's own: about 20 ms)"

# rank 1's main stream cut in the middle of its data
pid=$(rank_pid "$T/cut" 1)
f=$(find "$T/cut" -name "stream.$pid.$pid*" | head -n 1)
[ -n "$f" ] && [ -f "$f" ] || die "no main stream of rank 1 (pid $pid) in $T/cut"
size=$(stat -c %s "$f")
truncate -s $((size / 2 + 3)) "$f"
for view in --waits --traffic; do
	run "cut$view" "$PERFSCOPE" mpi "$T/cut" "$view" --csv
	expect_eq 0 "$RC" "rank 1's stream cut short: perfscope mpi $view exit status"
	expect_grep "rank 1" "$T/cut$view.err" "rank 1's stream cut short: perfscope mpi $view names the rank"
done

finish

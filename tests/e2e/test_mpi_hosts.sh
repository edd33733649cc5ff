#!/usr/bin/env bash
# Several hosts, emulated on this machine: Open MPI's rsh launcher (the one it uses with ssh)
# gets as its agent a script that, like ssh to a host, starts the command with a fresh
# environment, here in its own UTS namespace named after the host (unshare --uts: gethostname
# there says nodeA or nodeB, and Open MPI takes the two for separate nodes: no shared memory
# between them, TCP). Ranks on nodeB also get a clock 1 s ahead
# (PERFSCOPE_TEST_CLOCK_SKEW, set by the agent for that host only). The ring of late senders
# on 4 ranks, 2 per host, 2 iterations. Checked:
#  - every rank was traced although the fresh environment has nothing of mpirun's: record
#    --mpi has mpirun forward perfscope's variables (OMPI_MCA_mca_base_env_list);
#  - one load sampler per host (one load log each), and `perfscope mpi --load` shows both
#    hosts and ranks 0, 1 on nodeA, 2, 3 on nodeB;
#  - clock offsets measured across the hosts at MPI_Init and MPI_Finalize: nodeB's ranks
#    -1 s, nodeA's 0, within half the measurement's round trip (+ 1 ms);
#  - exact traffic: 2 messages of 8 bytes from every rank k to k+1; the waits, on clocks
#    aligned across hosts, match the program's own clock (10 % or 2 ms, plus the alignment's
#    error: half the round trips of the two ranks' measurements), other pairs < 2 ms.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ "$(id -u)" -eq 0 ] || skip "emulating hosts needs root (unshare --uts), as CI runs"
unshare --uts true 2>/dev/null || die "unshare --uts fails here although run as root"
mpirun --version 2>/dev/null | grep -q "Open MPI" || die "mpirun is not Open MPI's: $(mpirun --version 2>&1 | head -n 1)"
ring=$(mpi_prog ring)
np=4 iters=2
export PERFSCOPE_CLOCK=monotonic

cat >"$T/agent.sh" <<'EOF'
#!/bin/sh
# test_mpi_hosts.sh's rsh agent: "ssh" to host $1 and run the rest there
host=$1
shift
skew=
[ "$host" = nodeB ] && skew=PERFSCOPE_TEST_CLOCK_SKEW=1000000000:0
exec env -i PATH="$PATH" HOME="$HOME" $skew unshare --uts sh -c "hostname $host && $*"
EOF
chmod +x "$T/agent.sh"

mpi_record rec "$T/hosts" "$np" --mca plm_rsh_agent "$T/agent.sh" --host nodeA:2,nodeB:2 \
	"$ring" -b 10 -n "$iters" -m "$T/marks"
expect_grep "expected wait of rank 1 for rank 0: 20000000 ns" "$T/rec.out" "ring ran 2 iterations with -b 10"
# meta.json keeps the command typed, not the one run with the inserted -x arguments
expect_eq "mpirun -np $np --mca plm_rsh_agent $T/agent.sh --host nodeA:2,nodeB:2 $ring -b 10 -n $iters -m $T/marks" \
	"$(json_eval "$T/hosts/meta.json" '" ".join(d["command"])')" "meta.json's command"

run json "$PERFSCOPE" mpi "$T/hosts" --json
expect_eq 0 "$RC" "perfscope mpi --json exit status"
[ "$RC" -eq 0 ] || show json
expect_eq "$np" "$(json_eval "$T/json.out" 'd["world_size"]')" "world size"
expect_eq "True,True,True,True" \
	"$(json_eval "$T/json.out" '",".join(str(r["present"]) for r in d["ranks"])')" "every rank traced"
expect_eq true "$(json_eval "$T/json.out" 'd["clock_aligned"]')" "clocks aligned"
expect_eq "nodeA,nodeA,nodeB,nodeB" \
	"$(json_eval "$T/json.out" '",".join(r["host"] for r in d["ranks"])')" "each rank's host"

# one load sampler per host
expect_eq 1 "$(find "$T/hosts" -name 'load.nodeA.*' | wc -l)" "load logs of nodeA"
expect_eq 1 "$(find "$T/hosts" -name 'load.nodeB.*' | wc -l)" "load logs of nodeB"
expect_eq 2 "$(find "$T/hosts" -name 'load.*' | wc -l)" "load logs"
run load "$PERFSCOPE" mpi "$T/hosts" --load --csv
expect_eq 0 "$RC" "perfscope mpi --load --csv exit status"
[ "$RC" -eq 0 ] || show load
for h in nodeA nodeB; do
	expect_cmp "$(csv_get "$T/load.out" samples host="$h" rank=host)" '>=' 1 "$h: host load samples"
done
for r in 0 1 2 3; do
	h=nodeA
	[ "$r" -ge 2 ] && h=nodeB
	expect_cmp "$(csv_get "$T/load.out" samples host="$h" rank="$r")" '>=' 1 "rank $r: CPU share samples on $h"
done

# the clock offsets rank 0 measured across the hosts
run dump "$PERFSCOPE" dump "$T/hosts"
expect_eq 0 "$RC" "perfscope dump exit status"
# "RANK OFFSET RTT" per measurement; a ping-pong's offset is right within half its round trip
# (a loaded machine stretches the round trips across the hosts' TCP connections)
awk '/^# .*stream/ { rank = $0; sub(/.* rank /, "", rank); sub(/;.*/, "", rank) }
	/mpi-clock/ { o = $0; sub(/.*offset_ns=/, "", o); sub(/ .*/, "", o)
		r = $0; sub(/.*rtt_ns=/, "", r); sub(/ .*/, "", r); print rank, o, r }' \
	"$T/dump.out" >"$T/offsets"
expect_eq $((2 * np)) "$(wc -l <"$T/offsets")" "two clock measurements per rank"
while read -r rank off rtt; do
	tol=$((rtt / 2 + 1000000))
	if [ "$rank" -ge 2 ]; then
		expect_near -1000000000 "$off" "$tol" "measured clock offset of rank $rank (nodeB, round trip $rtt ns)"
	else
		expect_near 0 "$off" "$tol" "measured clock offset of rank $rank (nodeA, round trip $rtt ns)"
	fi
done <"$T/offsets"
# half the longest round trip of a rank's measurements: how far its aligned times may be off
half_rtt() {
	awk -v r="$1" '$1 == r && $3 / 2 > m { m = $3 / 2 } END { printf "%.0f\n", m }' "$T/offsets"
}

run traffic "$PERFSCOPE" mpi "$T/hosts" --traffic --csv
expect_eq 0 "$RC" "perfscope mpi --traffic --csv exit status"
for ((k = 0; k < np; k++)); do
	j=$(((k + 1) % np))
	expect_eq "$iters" "$(csv_get "$T/traffic.out" matched sender="$k" receiver="$j")" "matched $k -> $j"
	expect_eq $((8 * iters)) "$(csv_get "$T/traffic.out" bytes sender="$k" receiver="$j")" "bytes $k -> $j"
done

marks_p2p "$T/marks" "$np" >"$T/measured"
mpi_waits waits "$T/hosts"
for ((j = 0; j < np; j++)); do
	prev=$(((j + np - 1) % np))
	for ((i = 0; i < np; i++)); do
		got=$(wait_cell "$T/waits.out" "$j" "$i")
		if [ "$i" -eq "$prev" ]; then
			meas=$(awk -v j="$j" -v k="$i" '$1 == j && $2 == k { print $3 }' "$T/measured")
			# the alignment's error of both ranks adds to the issue's tolerance
			err=$(($(half_rtt "$j") + $(half_rtt "$i")))
			if [ "$err" -gt 0 ]; then
				expect_near "${meas:-0}" "$got" "$(awk -v e="${meas:-0}" -v x="$err" 'BEGIN {
					t = 0.1 * e; if (t < 2e6) t = 2e6; printf "%.0f", t + x }')" \
					"wait of rank $j for rank $i, against the program's own clock"
			else
				expect_wait "${meas:-0}" "$got" "wait of rank $j for rank $i, against the program's own clock"
			fi
		else
			expect_near 0 "$got" 2000000 "wait of rank $j for rank $i (not its sender)"
		fi
	done
done

finish

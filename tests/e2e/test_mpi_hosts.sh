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

hosts_check "$T/hosts" "$iters" "$T/marks"

finish

#!/usr/bin/env bash
# Several hosts under MPICH's Hydra, emulated on this machine as tests/e2e/test_mpi_hosts.sh
# does for Open MPI: Hydra's ssh launcher gets as its program (-bootstrap-exec) an agent that
# skips ssh's options and starts the host's proxy with a fresh environment in its own UTS
# namespace named nodeA or nodeB (Hydra forwards the environment itself); nodeB's clock runs
# 1 s ahead. The ring of late senders (ring_mpich) on 4 ranks, 2 per host, 2 iterations.
# Checked as there: every rank traced, one load log per host and each rank on its host in
# `perfscope mpi --load`, the offsets rank 0 measured across the hosts, the exact traffic, the
# aligned waits against the program's own clock. Registered when libperfscope-mpich.so is built.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"
mpi_init
[ "$(id -u)" -eq 0 ] || skip "emulating hosts needs root (unshare --uts), as CI runs"
unshare --uts true 2>/dev/null || die "unshare --uts fails here although run as root"
command -v mpiexec.mpich >/dev/null 2>&1 ||
	die "mpiexec.mpich is missing (scripts/install-deps.sh installs the mpich package)"
ring=$(mpi_prog ring_mpich)
np=4 iters=2
export PERFSCOPE_CLOCK=monotonic

cat >"$T/agent.sh" <<'EOF'
#!/bin/sh
# test_mpi_mpich_hosts.sh's ssh: skip the options, "ssh" to the host and run the rest there
while [ "${1#-}" != "$1" ]; do shift; done
host=$1
shift
skew=
[ "$host" = nodeB ] && skew=PERFSCOPE_TEST_CLOCK_SKEW=1000000000:0
exec env -i PATH="$PATH" HOME="$HOME" $skew unshare --uts sh -c "hostname $host && $*"
EOF
chmod +x "$T/agent.sh"

run rec timeout -k 5 "$MPI_TIMEOUT" "$PERFSCOPE" record --mpi -o "$T/hosts" -- mpiexec.mpich \
	-bootstrap ssh -bootstrap-exec "$T/agent.sh" -hosts nodeA:2,nodeB:2 -n "$np" \
	"$ring" -b 10 -n "$iters" -m "$T/marks"
if [ "$RC" -ne 0 ] || [ ! -f "$T/hosts/meta.json" ]; then
	show rec
	die "perfscope record --mpi -- mpiexec.mpich (two emulated hosts) exited $RC"
fi
expect_grep "expected wait of rank 1 for rank 0: 20000000 ns" "$T/rec.out" "ring ran 2 iterations with -b 10"

hosts_check "$T/hosts" "$iters" "$T/marks"

finish
